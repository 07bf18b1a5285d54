// Connectors: each with its recent runs as a strip (colour = outcome), run now, enable/disable,
// and the file they come from (reloaded by a button or SIGHUP); one connector's options, the
// folders it watches and its runs as a timeline with counts, errors and feeds, runs that did
// nothing folded into one line.
import type { ConnectorRun, ConnectorSummary } from '../../connectors/host/connectors.schemas.ts';
import { at, duration, html, qs, shopName, utcText, type Html, type ShopNames } from './html.ts';

/** What started a run, as the timeline says it. */
const TRIGGERS: Record<string, string> = {
  schedule: 'its schedule',
  manual: 'run now',
  file: 'a file dropped in its folder',
  cli: 'the command line',
  webhook: 'a pushed request',
};

const runTitle = (r: ConnectorRun): string =>
  `#${r.id} ${r.outcome} · ${r.trigger} · ${utcText(r.started_at)}${r.duration_ms === null ? '' : ` · ${r.duration_ms} ms`}${r.error === null ? '' : ` · ${r.error}`}`;

export const runStrip = (runs: ConnectorRun[]): Html =>
  html`<div class="runs" aria-label="recent runs">${[...runs]
    .reverse()
    .map((r) => html`<a class="${r.outcome}" href="/admin/logs${qs({ run: r.id })}" title="${runTitle(r)}"></a>`)}</div>`;

/** A connector whose last run needs someone: it failed, refused something, or was skipped. */
export const needsAttention = (c: ConnectorSummary): boolean => ['failed', 'partial', 'skipped'].includes(c.last_runs[0]?.outcome ?? '');

/** The enabled/disabled badge, and while the remote API's Retry-After holds, until when it waits. */
const state = (c: ConnectorSummary): Html =>
  html`<span class="badge ${c.enabled ? 'done' : 'failed'}">${c.enabled ? 'enabled' : 'disabled'}</span>${
    c.throttled_until === null
      ? ''
      : html` <span class="badge throttled" data-throttled-until="${c.throttled_until}" title="The remote API answered Retry-After: no run starts before ${utcText(c.throttled_until)}">throttled until ${at(c.throttled_until)} (${duration(Math.max(0, (Date.parse(c.throttled_until) - Date.now()) / 1000))} more)</span>`
  }`;

const controls = (c: ConnectorSummary): Html => {
  const base = `/admin/api/connectors/${encodeURIComponent(c.name)}`;
  return html`<button data-action="${base}/run" data-confirm="Run connector ${c.name} now?">Run now</button>
${
  c.enabled
    ? html`<button class="secondary" data-action="${base}/disable" data-confirm="Disable ${c.name}? Its schedule and receivers stop until it is enabled again.">Disable</button>`
    : html`<button class="secondary" data-action="${base}/enable" data-confirm="Enable ${c.name}?">Enable</button>`
}`;
};

/** Where the connectors come from and how an edit of the file is applied. */
const fileNote = (
  file: string,
): Html => html`<div class="card file-note" id="connectors-file"><p>Connectors come from <code>${file}</code> (WAYBILL_CONNECTORS), read when the daemon starts.
After editing it, <button class="small" data-action="/admin/api/connectors/reload" data-confirm="Read the connectors file again? A file with a problem changes nothing.">Reload</button>
(or send the daemon SIGHUP): a bad file changes nothing and every problem is named. The log says when the file changed on disk.</p></div>`;

const lastRun = (last: ConnectorRun | undefined): Html =>
  last === undefined
    ? html`<span class="muted">never</span>`
    : html`<span class="badge ${last.outcome}">${last.outcome}</span> ${at(last.started_at)}${countsText(last) === '' ? '' : html`<br><small>${countsText(last)}</small>`}${last.error === null ? '' : html`<br><small class="${last.outcome === 'skipped' ? 'muted' : 'error'}">${last.error}</small>`}`;

export interface ConnectorsView {
  list: ConnectorSummary[];
  names: ShopNames;
  /** Only connectors that need attention (from the overview). */
  attention: boolean;
  file: string;
}

/** The list; on a phone each connector is a card (labels from data-label), its buttons and run strip on screen. */
export function connectorsFragment(v: ConnectorsView): Html {
  const filter = v.attention
    ? html`<p class="filters"><span class="muted">Connectors whose last run failed, ended partial or was skipped.</span> <a href="/admin/connectors">every connector</a></p>`
    : '';
  if (v.list.length === 0) {
    return html`${filter}<p class="muted" id="no-connectors">${v.attention ? "Every connector's last run went through." : 'No connectors: declare them in the WAYBILL_CONNECTORS file.'}</p>`;
  }
  return html`${filter}<table class="connectors stacked"><thead><tr><th>Connector</th><th>Type</th><th>Shop</th><th>Schedule</th><th>State</th><th>Recent runs</th><th>Last run</th><th></th></tr></thead>
<tbody>${v.list.map((c) => {
    const last = c.last_runs[0];
    return html`<tr data-connector="${c.name}" class="${last?.outcome === 'failed' ? 'bad' : last?.outcome === 'partial' ? 'warn' : ''}">
<td data-label="Connector"><a href="/admin/connectors/${encodeURIComponent(c.name)}">${c.name}</a></td><td data-label="Type">${c.type}</td><td data-label="Shop">${shopName(v.names, c.shop_pk)}</td><td data-label="Schedule"><code>${c.schedule ?? '–'}</code></td>
<td data-label="State">${state(c)}</td>
<td data-label="Recent runs">${runStrip(c.last_runs)}</td>
<td data-label="Last run">${lastRun(last)}</td>
<td class="actions">${controls(c)}</td></tr>`;
  })}</tbody></table>`;
}

export const connectorsBody = (v: ConnectorsView): Html => html`<h1>Connectors</h1>
${fileNote(v.file)}
<section id="connectors" data-live="/admin/connectors${qs({ attention: v.attention ? '1' : undefined, fragment: '1' })}" data-every="2000">${connectorsFragment(v)}</section>`;

const countsText = (r: ConnectorRun): string =>
  Object.entries(r.counts)
    .filter(([, n]) => n !== 0)
    .map(([k, n]) => `${k.replaceAll('_', ' ')} ${n}`)
    .join(' · ');

/**
 * A run that did nothing worth reading: a scheduled tick that ended without a count, a feed or
 * an error (an empty inbox), or one skipped for the same reason as its neighbours.
 */
const quietKey = (r: ConnectorRun): string | null => {
  if (r.trigger !== 'schedule') return null;
  if (r.outcome === 'succeeded' && r.feed_pks.length === 0 && r.error === null && Object.values(r.counts).every((n) => n === 0))
    return 'empty';
  return r.outcome === 'skipped' ? `skipped:${r.error ?? ''}` : null;
};

type TimelineItem = { run: ConnectorRun } | { quiet: ConnectorRun[] };

/** Runs newest first, each stretch of 2 or more quiet runs of one kind folded into one item. */
function timeline(runs: ConnectorRun[]): TimelineItem[] {
  const out: TimelineItem[] = [];
  for (const run of runs) {
    const key = quietKey(run);
    const prev = out.at(-1);
    if (key !== null && prev !== undefined && 'quiet' in prev && quietKey(prev.quiet[0]!) === key) prev.quiet.push(run);
    else if (key !== null) out.push({ quiet: [run] });
    else out.push({ run });
  }
  return out.map((item) => ('quiet' in item && item.quiet.length === 1 ? { run: item.quiet[0]! } : item));
}

const runItem = (r: ConnectorRun): Html => html`<li class="${r.outcome}" data-run="${r.id}" data-trigger="${r.trigger}">
<b>#${r.id}</b> <span class="badge ${r.outcome}">${r.outcome}</span> <span class="trigger" title="started by ${TRIGGERS[r.trigger] ?? r.trigger}">${r.trigger}</span>${r.attempt > 1 ? ` (attempt ${r.attempt})` : ''} · ${at(r.started_at)}${r.duration_ms === null ? '' : ` · ${r.duration_ms} ms`}
${countsText(r) === '' ? '' : html`<br><small>${countsText(r)}</small>`}
${r.error === null ? '' : html`<br><span class="${r.outcome === 'skipped' ? 'muted' : 'error'}">${r.error}</span>`}
${r.throttled_until === null ? '' : html`<br><small>no run before ${at(r.throttled_until)}</small>`}
${r.feed_pks.length === 0 ? '' : html`<br><small>feeds: ${r.feed_pks.map((f) => html`<a href="/admin/feeds/${encodeURIComponent(f)}">${f.slice(0, 8)}</a> `)}</small>`}
<br><small><a href="/admin/logs${qs({ run: r.id })}">log lines</a></small></li>`;

const quietItem = (runs: ConnectorRun[]): Html => {
  const newest = runs[0]!;
  const oldest = runs.at(-1)!;
  const what = newest.outcome === 'skipped' ? `${runs.length} scheduled runs skipped` : `${runs.length} scheduled runs with nothing to do`;
  return html`<li class="${newest.outcome} folded" data-folded="${runs.length}"><details><summary>${what} · ${at(oldest.started_at)} to ${at(newest.started_at)}</summary>
${newest.error === null ? '' : html`<span class="muted">${newest.error}</span>`}
<ol class="timeline">${runs.map(runItem)}</ol></details></li>`;
};

const optionValue = (v: unknown): Html => (typeof v === 'string' ? html`<code>${v}</code>` : html`<code>${JSON.stringify(v)}</code>`);

export interface ConnectorView {
  c: ConnectorSummary;
  runs: ConnectorRun[];
  names: ShopNames;
  file: string;
  /** The connector's last input's summary (a file connector's last file), null when none. */
  lastInput?: Record<string, unknown> | null;
}

type Kinds = Record<string, { count: number; examples: string[] }>;

const kindList = (title: string, kinds: Kinds | undefined): Html => {
  const entries = Object.entries(kinds ?? {});
  return entries.length === 0
    ? html``
    : html`<dt>${title}</dt><dd><ul>${entries.map(([k, v]) => html`<li><b>${k}</b>: ${v.count}<br><small class="muted">${v.examples.join(' · ')}</small></li>`)}</ul></dd>`;
};

/** The last file: its outcome and, read with a preset, what was read, made, defaulted, converted, warned about and skipped. */
function lastInputCard(last: Record<string, unknown>): Html {
  const s = (last.summary ?? null) as {
    rows: number;
    products: number;
    variations: number;
    images: number;
    defaults: Record<string, { value: unknown; products: number }>;
    conversions: Record<string, number>;
    warnings: Kinds;
    skipped: Kinds;
    dropped_columns: string[];
  } | null;
  const counts = (last.counts ?? {}) as Record<string, number>;
  return html`<div class="card" id="last-input"><h2>Last file</h2><dl class="facts">
<dt>File</dt><dd><code>${String(last.file)}</code> <span class="badge ${String(last.outcome)}">${String(last.outcome)}</span>${last.reason === null ? '' : html`<br><small>${String(last.reason)}</small>`}</dd>
<dt>Counts</dt><dd>${Object.entries(counts)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ')}</dd>
${
  s === null
    ? ''
    : html`<dt>Read</dt><dd>${s.rows} rows: ${s.products} products, ${s.variations} variations, ${s.images} images</dd>
${Object.keys(s.defaults).length === 0 ? '' : html`<dt>Defaults</dt><dd>${Object.entries(s.defaults).map(([f, d]) => html`<code>${f}</code>=${JSON.stringify(d.value)} for ${d.products} products lacking it (new ones only) `)}</dd>`}
${
  Object.keys(s.conversions).length === 0
    ? ''
    : html`<dt>Conversions</dt><dd>${Object.entries(s.conversions)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ')}</dd>`
}
${kindList('Warnings', s.warnings)}${kindList('Skipped', s.skipped)}
${s.dropped_columns.length === 0 ? '' : html`<dt>Dropped columns</dt><dd><small>${s.dropped_columns.join(', ')}</small></dd>`}`
}
</dl></div>`;
}

export function connectorFragment({ c, runs, names, file, lastInput }: ConnectorView): Html {
  return html`<div class="card connector-head"><p class="actions-bar">${controls(c)}</p>
<div class="runs-now">${runStrip(c.last_runs)}</div>
<dl class="facts"><dt>Type</dt><dd>${c.type}</dd><dt>Shop</dt><dd>${shopName(names, c.shop_pk)}</dd>
<dt>Schedule</dt><dd><code>${c.schedule ?? 'none (push or run now)'}</code></dd>
<dt>State</dt><dd>${state(c)}${c.enabled === c.enabled_in_file ? '' : html` <small class="muted">(file says ${c.enabled_in_file ? 'enabled' : 'disabled'})</small>`}</dd>
${c.watches.length === 0 ? '' : html`<dt>Watches</dt><dd id="watches">${c.watches.map((w) => html`<code>${w}</code> `)}<br><small class="muted">a file dropped here starts a run at once (labelled <code>file</code>); the schedule stays the floor</small></dd>`}
${c.receivers.length === 0 ? '' : html`<dt>Receives</dt><dd>${c.receivers.map((r) => html`<code>POST ${r}</code> `)}</dd>`}
<dt>Options</dt><dd><dl class="facts options" id="options">${Object.entries(c.options).map(([k, v]) => html`<dt>${k}</dt><dd>${optionValue(v)}</dd>`)}</dl></dd>
<dt>From</dt><dd><code>${file}</code> <small class="muted">read at start; after an edit, Reload on the <a href="/admin/connectors">Connectors</a> page or SIGHUP</small></dd></dl></div>
${lastInput === undefined || lastInput === null ? '' : lastInputCard(lastInput)}
<h2>Runs</h2>
${runs.length === 0 ? html`<p class="muted">No runs yet.</p>` : html`<ol class="timeline" id="runs">${timeline(runs).map((item) => ('run' in item ? runItem(item.run) : quietItem(item.quiet)))}</ol>`}`;
}

export const connectorBody = (v: ConnectorView): Html => html`<h1>Connector ${v.c.name}</h1>
<section id="connector" data-live="/admin/connectors/${encodeURIComponent(v.c.name)}?fragment=1" data-every="2000">${connectorFragment(v)}</section>`;
