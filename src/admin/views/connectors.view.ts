// Connectors: each with its recent runs as a strip (colour = outcome), run now, enable/disable;
// one connector's runs as a timeline with counts, errors, feeds and a link to its log lines.
import type { ConnectorRun, ConnectorSummary } from '../../connectors/host/connectors.schemas.ts';
import { at, duration, html, qs, shopName, utcText, type Html, type ShopNames } from './html.ts';

const runTitle = (r: ConnectorRun): string =>
  `#${r.id} ${r.outcome} · ${r.trigger} · ${utcText(r.started_at)}${r.duration_ms === null ? '' : ` · ${r.duration_ms} ms`}${r.error === null ? '' : ` · ${r.error}`}`;

export const runStrip = (runs: ConnectorRun[]): Html => html`<div class="runs" aria-label="recent runs">${[...runs].reverse().map((r) =>
  html`<a class="${r.outcome}" href="/admin/logs${qs({ run: r.id })}" title="${runTitle(r)}"></a>`)}</div>`;

/** The enabled/disabled badge, and while the remote API's Retry-After holds, until when it waits. */
const state = (c: ConnectorSummary): Html => html`<span class="badge ${c.enabled ? 'done' : 'failed'}">${c.enabled ? 'enabled' : 'disabled'}</span>${c.throttled_until === null ? ''
  : html` <span class="badge throttled" data-throttled-until="${c.throttled_until}" title="The remote API answered Retry-After: no run starts before ${utcText(c.throttled_until)}">throttled until ${at(c.throttled_until)} (${duration(Math.max(0, (Date.parse(c.throttled_until) - Date.now()) / 1000))} more)</span>`}`;

const controls = (c: ConnectorSummary): Html => {
  const base = `/admin/api/connectors/${encodeURIComponent(c.name)}`;
  return html`<button data-action="${base}/run" data-confirm="Run connector ${c.name} now?">Run now</button>
${c.enabled
    ? html`<button class="secondary" data-action="${base}/disable" data-confirm="Disable ${c.name}? Its schedule and receivers stop until it is enabled again.">Disable</button>`
    : html`<button class="secondary" data-action="${base}/enable" data-confirm="Enable ${c.name}?">Enable</button>`}`;
};

export function connectorsFragment(list: ConnectorSummary[], names: ShopNames): Html {
  if (list.length === 0) return html`<p class="muted">No connectors: declare them in the WAYBILL_CONNECTORS file.</p>`;
  return html`<table><thead><tr><th>Connector</th><th>Type</th><th>Shop</th><th>Schedule</th><th>State</th><th>Recent runs</th><th>Last run</th><th></th></tr></thead>
<tbody>${list.map((c) => {
    const last = c.last_runs[0];
    return html`<tr data-connector="${c.name}" class="${last?.outcome === 'failed' ? 'bad' : ''}">
<td><a href="/admin/connectors/${encodeURIComponent(c.name)}">${c.name}</a></td><td>${c.type}</td><td>${shopName(names, c.shop_pk)}</td><td><code>${c.schedule ?? '–'}</code></td>
<td>${state(c)}</td>
<td>${runStrip(c.last_runs)}</td>
<td>${last === undefined ? html`<span class="muted">never</span>` : html`<span class="badge ${last.outcome}">${last.outcome}</span> ${at(last.started_at)}${last.error === null ? '' : html`<br><small class="error">${last.error}</small>`}`}</td>
<td class="actions">${controls(c)}</td></tr>`;
  })}</tbody></table>`;
}

export const connectorsBody = (list: ConnectorSummary[], names: ShopNames): Html => html`<h1>Connectors</h1>
<section id="connectors" data-live="/admin/connectors?fragment=1" data-every="2000">${connectorsFragment(list, names)}</section>`;

export function connectorFragment(c: ConnectorSummary, runs: ConnectorRun[], names: ShopNames): Html {
  return html`<div class="card"><dl class="facts"><dt>Type</dt><dd>${c.type}</dd><dt>Shop</dt><dd>${shopName(names, c.shop_pk)}</dd>
<dt>Schedule</dt><dd><code>${c.schedule ?? 'none (push or run now)'}</code></dd>
<dt>State</dt><dd>${state(c)}${c.enabled === c.enabled_in_file ? '' : html` <small class="muted">(file says ${c.enabled_in_file ? 'enabled' : 'disabled'})</small>`}</dd>
${c.receivers.length === 0 ? '' : html`<dt>Receives</dt><dd>${c.receivers.map((r) => html`<code>POST ${r}</code> `)}</dd>`}</dl>
<p>${controls(c)}</p></div>
<h2>Runs</h2>
${runs.length === 0 ? html`<p class="muted">No runs yet.</p>` : html`<ol class="timeline">${runs.map((r) => html`<li class="${r.outcome}" data-run="${r.id}">
<b>#${r.id}</b> <span class="badge ${r.outcome}">${r.outcome}</span> ${r.trigger}${r.attempt > 1 ? ` (attempt ${r.attempt})` : ''} · ${at(r.started_at)}${r.duration_ms === null ? '' : ` · ${r.duration_ms} ms`}
${Object.keys(r.counts).length === 0 ? '' : html`<br><small>${Object.entries(r.counts).map(([k, v]) => `${k} ${v}`).join(' · ')}</small>`}
${r.error === null ? '' : html`<br><span class="error">${r.error}</span>`}
${r.throttled_until === null ? '' : html`<br><small>no run before ${at(r.throttled_until)}</small>`}
${r.feed_pks.length === 0 ? '' : html`<br><small>feeds: ${r.feed_pks.map((f) => html`<a href="/admin/feeds/${encodeURIComponent(f)}">${f.slice(0, 8)}</a> `)}</small>`}
<br><small><a href="/admin/logs${qs({ run: r.id })}">log lines</a></small></li>`)}</ol>`}`;
}

export const connectorBody = (c: ConnectorSummary, runs: ConnectorRun[], names: ShopNames): Html => html`<h1>Connector ${c.name}</h1>
<section id="connector" data-live="/admin/connectors/${encodeURIComponent(c.name)}?fragment=1" data-every="2000">${connectorFragment(c, runs, names)}</section>`;
