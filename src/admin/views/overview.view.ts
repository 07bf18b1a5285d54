// Overview: the figures an admin checks first, and the last hours as charts.
import type { OverviewOut } from '../admin.schemas.ts';
import { areaChart, stackedBar } from './charts.ts';
import { at, duration, html, type Html } from './html.ts';

const stateColors: Record<string, string> = { queued: '#94a3b8', processing: '#3b82f6', done: '#16a34a', failed: '#dc2626' };

export function overviewFragment(o: OverviewOut): Html {
  const feedStates = o.feeds.by_state;
  const step = o.charts.step_minutes;
  return html`
<div class="cards">
  <div class="card stat"><span>Shops</span><b>${o.shops}</b><small>${o.active_keys} active keys</small></div>
  <div class="card stat" id="jobs-waiting"><span>Jobs waiting</span><b>${o.jobs.waiting}</b><small>${o.jobs.waiting === 0 ? "none waiting" : `oldest ${duration(o.jobs.oldest_age_seconds)}`}</small></div>
  <div class="card stat"><span>Jobs running</span><b>${o.jobs.active}</b></div>
  <div class="card stat ${o.jobs.dead > 0 ? 'bad' : ''}"><span>Failed jobs</span><b><a href="/admin/jobs">${o.jobs.dead}</a></b><small>in dead-letter queues</small></div>
  ${html`<div class="card stat"><span>Feeds running</span><b><a href="/admin/feeds?state=processing">${feedStates.processing ?? 0}</a></b><small>${feedStates.queued ?? 0} queued</small></div>
  <div class="card stat ${(feedStates.failed ?? 0) > 0 ? 'bad' : ''}"><span>Feeds failed</span><b><a href="/admin/feeds?state=failed">${feedStates.failed ?? 0}</a></b><small>last 30 days</small></div>`}
  ${o.connectors === null ? '' : html`<div class="card stat ${o.connectors.failing > 0 ? 'bad' : ''}"><span>Connectors</span><b><a href="/admin/connectors">${o.connectors.enabled}/${o.connectors.total}</a></b><small>${o.connectors.failing} failing</small></div>`}
</div>
${html`<h2>Feeds by state (30 days)</h2>${stackedBar(Object.entries(feedStates).map(([label, value]) => ({ label, value, color: stateColors[label] ?? '#64748b' })))}`}
<div class="charts">
  ${areaChart('Feeds finished /min', o.charts.feeds_per_minute, '#2563eb')}
  ${areaChart('Feed items processed /min', o.charts.items_per_minute, '#16a34a')}
  ${areaChart('Feed item errors /min', o.charts.item_errors_per_minute, '#ea580c')}
  ${areaChart('Errors logged /min', o.charts.errors_per_minute, '#dc2626')}
  ${areaChart('Jobs waiting', o.charts.queue_depth, '#9333ea')}
</div>
<h2>Queues</h2>
<table><thead><tr><th>Queue</th><th class="num">Waiting</th><th class="num">Running</th><th class="num">Failed</th><th class="num">Oldest waiting</th></tr></thead>
<tbody>${o.queues.map((q) => html`<tr class="${q.dead && q.queued > 0 ? 'bad' : ''}"><td><a href="/admin/jobs?queue=${encodeURIComponent(q.name)}">${q.name}</a></td>
<td class="num">${q.queued}</td><td class="num">${q.active}</td><td class="num">${q.failed}</td><td class="num">${q.queued > 0 ? duration(q.oldest_age_seconds) : '–'}</td></tr>`)}</tbody></table>
<p class="muted small">Updated ${at(o.generated_at)} · charts cover the last ${Math.round((o.charts.queue_depth.length * step) / 60)} h</p>`;
}

export const overviewBody = (o: OverviewOut): Html => html`<h1>Overview</h1>
<section id="overview" data-live="/admin/?fragment=1" data-every="5000">${overviewFragment(o)}</section>`;
