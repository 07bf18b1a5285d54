// Overview: the figures an admin checks first (each one that is failing in red, linked to what
// fails), and the last hours as charts.
import type { OverviewOut, QueueOut } from '../admin.schemas.ts';
import { areaChart, stackedBar } from './charts.ts';
import { at, duration, html, qs, type Html } from './html.ts';

/**
 * The queues the overview always lists: the work shops and operators see. The others (the
 * maintenance jobs and the dead-letter queues) are listed when they hold a job, or when asked.
 */
const MAIN_QUEUES = new Set(['feed.process', 'webhook.deliver', 'connector.run']);
const isQuiet = (q: QueueOut): boolean => !MAIN_QUEUES.has(q.name) && q.queued === 0 && q.active === 0 && q.failed === 0;

const stateColors: Record<string, string> = {
  queued: '#94a3b8',
  processing: '#3b82f6',
  done: '#16a34a',
  partial: '#f59e0b',
  failed: '#dc2626',
};

/** A figure card: red when `bad`, amber when `warn`; its figure links to what it counts. */
const card = (o: {
  id: string;
  label: string;
  value: number | string;
  href?: string;
  small?: Html | string;
  bad?: boolean;
  warn?: boolean;
}): Html =>
  html`<div class="card stat${o.bad === true ? ' bad' : o.warn === true ? ' warn' : ''}" id="${o.id}"><span>${o.label}</span><b>${o.href === undefined ? o.value : html`<a href="${o.href}">${o.value}</a>`}</b>${o.small === undefined ? '' : html`<small>${o.small}</small>`}</div>`;

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

export function overviewFragment(o: OverviewOut, allQueues = false): Html {
  const feedStates = o.feeds.by_state;
  const step = o.charts.step_minutes;
  const c = o.connectors;
  const w = o.webhooks;
  const queues = allQueues ? o.queues : o.queues.filter((q) => !isQuiet(q));
  const hidden = o.queues.length - queues.length;
  return html`
<div class="cards">
  ${card({ id: 'shops', label: 'Shops', value: o.shops, href: '/admin/shops', small: `${o.active_keys} active keys` })}
  ${card({ id: 'jobs-waiting', label: 'Jobs waiting', value: o.jobs.waiting, small: o.jobs.waiting === 0 ? 'none waiting' : `oldest ${duration(o.jobs.oldest_age_seconds)} (retries included)` })}
  ${card({ id: 'jobs-running', label: 'Jobs running', value: o.jobs.active })}
  ${card({ id: 'jobs-dead', label: 'Failed jobs', value: o.jobs.dead, href: '/admin/jobs', small: 'in dead-letter queues', bad: o.jobs.dead > 0 })}
  ${card({ id: 'feeds-running', label: 'Feeds running', value: feedStates.processing ?? 0, href: '/admin/feeds?state=processing', small: `${feedStates.queued ?? 0} queued` })}
  ${card({ id: 'feeds-failed', label: 'Feeds failed', value: feedStates.failed ?? 0, href: '/admin/feeds?state=failed', small: 'last 30 days', bad: (feedStates.failed ?? 0) > 0 })}
  ${card({ id: 'feeds-partial', label: 'Feeds with item errors', value: feedStates.partial ?? 0, href: '/admin/feeds?state=partial', small: 'done, some items refused', warn: (feedStates.partial ?? 0) > 0 })}
  ${
    c === null
      ? ''
      : card({
          id: 'connectors-failing',
          label: 'Connector runs failing',
          value: c.failing + c.partial + c.skipped,
          href: '/admin/connectors?attention=1',
          small:
            c.total === 0
              ? 'no connectors'
              : `${c.failing} failed · ${c.partial} partial${c.skipped === 0 ? '' : ` · ${c.skipped} skipped`} · ${c.enabled}/${c.total} enabled`,
          bad: c.failing > 0,
          warn: c.partial + c.skipped > 0,
        })
  }
  ${
    w === null
      ? ''
      : card({
          id: 'webhooks-failing',
          label: 'Webhook deliveries failing',
          value: w.failing + w.refused,
          href: '/admin/webhooks?state=failing',
          small: html`${w.failing} failing${w.refused === 0 ? '' : html` · <a href="/admin/webhooks?state=refused">${w.refused} refused</a>`} · last ${w.hours} h`,
          bad: w.failing + w.refused > 0,
        })
  }
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
<table class="queues"><thead><tr><th>Queue</th><th class="num">Waiting</th><th class="num">Running</th><th class="num">Failed</th><th class="num">Oldest waiting</th></tr></thead>
<tbody>${queues.map(
    (
      q,
    ) => html`<tr data-queue="${q.name}" class="${q.dead && q.queued > 0 ? 'bad' : ''}"><td><a href="/admin/jobs${qs({ queue: q.name })}">${q.name}</a></td>
<td class="num">${q.queued}</td><td class="num">${q.active}</td><td class="num">${q.failed}</td><td class="num">${q.queued > 0 ? duration(q.oldest_age_seconds) : '–'}</td></tr>`,
  )}</tbody></table>
<p class="muted small" id="queue-toggle">${
    allQueues
      ? html`Every queue is listed. <a href="/admin/">Hide the maintenance and dead-letter queues that are empty</a>`
      : hidden === 0
        ? ''
        : html`${plural(hidden, 'maintenance or dead-letter queue')} with no job ${hidden === 1 ? 'is' : 'are'} not listed: <a href="/admin/?queues=all">list every queue</a>`
  }</p>
<p class="muted small">Updated ${at(o.generated_at)} · charts cover the last ${Math.round((o.charts.queue_depth.length * step) / 60)} h</p>`;
}

export const overviewBody = (o: OverviewOut, allQueues = false): Html => html`<h1>Overview</h1>
<section id="overview" data-live="/admin/${qs({ queues: allQueues ? 'all' : undefined, fragment: '1' })}" data-every="5000">${overviewFragment(o, allQueues)}</section>`;
