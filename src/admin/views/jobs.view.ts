// Jobs: queues, then jobs of one queue (or of all, by search) with state filter, search by id
// or data, newest or oldest first, retry and cancel; one job with its error and stack in full.
import type { JobOut, QueueOut } from '../admin.schemas.ts';
import { at, html, qs, type Html } from './html.ts';

export interface JobsView {
  queues: QueueOut[];
  queue: string | null;
  state: string | null;
  /** A job id or text in the data. */
  q: string | null;
  order: 'newest' | 'oldest';
  jobs: JobOut[];
}

const states = ['created', 'retry', 'active', 'completed', 'cancelled', 'failed'];

/** The payload in one short line (ids mostly), so a job can be recognised without opening it. */
const preview = (data: unknown): string => {
  const text = JSON.stringify(data) ?? '';
  return text.length > 90 ? `${text.slice(0, 89)}…` : text;
};

export const jobUrl = (j: { queue: string; id: string }): string =>
  `/admin/jobs/${encodeURIComponent(j.queue)}/${encodeURIComponent(j.id)}`;

const actions = (j: JobOut): Html => {
  const dead = j.queue.endsWith('.dead');
  // A job that failed for good has a copy in the dead-letter queue: that copy is the one to retry
  // (retrying both would run it twice).
  const retryable = dead && (j.state === 'created' || j.state === 'retry');
  const cancellable = !dead && (j.state === 'created' || j.state === 'retry');
  const base = `/admin/api/queues/${encodeURIComponent(j.queue)}/jobs/${encodeURIComponent(j.id)}`;
  return html`${retryable ? html`<button data-action="${base}/retry" data-confirm="Run job ${j.id.slice(0, 8)} again?">Retry</button>` : ''}
${cancellable ? html`<button class="danger" data-action="${base}/cancel" data-confirm="Cancel job ${j.id.slice(0, 8)}? It will not run.">Cancel</button>` : ''}`;
};

/** What an attempt is: for a webhook delivery, one POST (the Webhooks page counts the same). */
const attemptsTitle = (j: JobOut): string =>
  j.queue.startsWith('webhook.deliver')
    ? 'Attempts so far, of those the job gets: each is one POST to the receiver, listed on the Webhooks page'
    : 'Attempts so far, of those the job gets (the first run and its retries)';

/** The webhook delivery a webhook.deliver job sends (its page lists every attempt). */
const deliveryLink = (j: JobOut): Html => {
  const id = (j.data as { messageId?: unknown } | null)?.messageId;
  return j.queue.startsWith('webhook.deliver') && typeof id === 'string'
    ? html` · <a href="/admin/webhooks${qs({ delivery: id })}" id="job-delivery">its delivery's attempts</a>`
    : html``;
};

const jobRow = (j: JobOut, showQueue: boolean): Html => {
  const dead = j.queue.endsWith('.dead');
  return html`<tr data-job="${j.id}" class="state-${j.state}">
<td><a href="${jobUrl(j)}"><code title="${j.id}">${j.id.slice(0, 8)}</code></a></td>
${showQueue ? html`<td>${j.queue}</td>` : ''}
<td><span class="badge ${j.state}">${dead ? 'dead' : j.state}</span></td>
<td class="num nowrap" title="${attemptsTitle(j)}">${dead ? j.attempts : `${j.attempts} of ${j.retry_limit + 1}`}</td>
<td class="nowrap">${at(j.created_at)}</td>
<td class="wrap">${j.error ?? ''}${j.source_queue === null ? '' : html` <small class="muted">from ${j.source_queue}</small>`}${j.state === 'failed' && !dead ? html` <small><a href="/admin/jobs${qs({ queue: `${j.queue}.dead` })}">retry from ${j.queue}.dead</a></small>` : ''}</td>
<td class="wrap"><code class="small">${preview(j.data)}</code></td>
<td class="actions">${actions(j)}</td></tr>`;
};

const jobsTable = (v: JobsView): Html => {
  const all = v.queue === null;
  const flip = v.order === 'newest' ? 'oldest' : 'newest';
  return v.jobs.length === 0
    ? html`<p class="muted" id="no-jobs">No jobs${v.q === null ? '' : html` match <code>${v.q}</code>`}.</p>`
    : html`<table class="jobs"><thead><tr><th>Job</th>${all ? html`<th>Queue</th>` : ''}<th>State</th><th class="num">Attempts</th>
<th><a href="/admin/jobs${qs({ queue: v.queue, state: v.state, q: v.q, order: flip })}" id="sort-created" title="Sort ${flip} first">Created ${v.order === 'newest' ? '↓' : '↑'}</a></th><th>Last error</th><th>Data</th><th></th></tr></thead>
<tbody>${v.jobs.map((j) => jobRow(j, all))}</tbody></table>`;
};

export function jobsFragment(v: JobsView): Html {
  return html`
<table class="queues"><thead><tr><th>Queue</th><th class="num">Waiting</th><th class="num">Running</th><th class="num">Failed</th><th class="num">Total</th></tr></thead>
<tbody>${v.queues.map(
    (q) => html`<tr class="${q.name === v.queue ? 'selected' : ''} ${q.dead && q.queued > 0 ? 'bad' : ''}">
<td><a href="/admin/jobs${qs({ queue: q.name })}">${q.name}</a></td><td class="num">${q.queued}</td><td class="num">${q.active}</td><td class="num">${q.failed}</td><td class="num">${q.total}</td></tr>`,
  )}</tbody></table>
${
  v.queue === null && v.q === null
    ? html`<p class="muted">Pick a queue to see its jobs, or search every queue by job id or data. Jobs that failed for good wait in the <code>.dead</code> queues, where they can be retried.</p>`
    : html`
<h2>${v.queue ?? 'Every queue'}</h2>
<nav class="filters"><a href="/admin/jobs${qs({ queue: v.queue, q: v.q, order: v.order === 'oldest' ? 'oldest' : undefined })}" class="${v.state === null ? 'active' : ''}">all</a>
${states.map((s) => html`<a href="/admin/jobs${qs({ queue: v.queue, state: s, q: v.q, order: v.order === 'oldest' ? 'oldest' : undefined })}" class="${v.state === s ? 'active' : ''}">${s}</a>`)}</nav>
${jobsTable(v)}`
}`;
}

export const jobsBody = (v: JobsView, liveUrl: string): Html => html`<h1>Jobs</h1>
<form class="filters" method="get" action="/admin/jobs" id="job-search">
<label>Queue <select name="queue"><option value="">every queue</option>${v.queues.map((q) => html`<option${q.name === v.queue ? html` selected` : ''}>${q.name}</option>`)}</select></label>
<label>Job id or data <input name="q" value="${v.q ?? ''}" size="24" placeholder="uuid, feed pk, sku…"></label>
<label>Sort <select name="order"><option value="newest">newest first</option><option value="oldest"${v.order === 'oldest' ? html` selected` : ''}>oldest first</option></select></label>
${v.state === null ? '' : html`<input type="hidden" name="state" value="${v.state}">`}
<button type="submit">Search</button></form>
<section id="jobs" data-live="${liveUrl}" data-every="2000">${jobsFragment(v)}</section>`;

/** The failure as pg-boss stored it: message, then the stack (which repeats the message) in full. */
const failure = (j: JobOut): Html => {
  const out = (j.output ?? {}) as { message?: unknown; stack?: unknown };
  const stack = typeof out.stack === 'string' ? out.stack : null;
  if (j.error === null && stack === null) return html``;
  return html`<h2>Error</h2><div class="card failure"><p class="error" id="job-error">${j.error ?? ''}</p>
${stack === null ? html`<p class="muted">No stack was stored.</p>` : html`<pre class="full" id="job-stack">${stack}</pre>`}</div>`;
};

export function jobFragment(j: JobOut): Html {
  return html`<div class="card"><dl class="facts">
<dt>Queue</dt><dd><a href="/admin/jobs${qs({ queue: j.queue })}">${j.queue}</a></dd>
<dt>State</dt><dd><span class="badge ${j.state}" id="job-state">${j.state}</span></dd>
<dt>Attempts</dt><dd title="${attemptsTitle(j)}">${j.attempts} of ${j.retry_limit + 1}${deliveryLink(j)}</dd>
<dt>Created</dt><dd>${at(j.created_at)}</dd><dt>Started</dt><dd>${at(j.started_at)}</dd><dt>Completed</dt><dd>${at(j.completed_at)}</dd>
${j.source_queue === null ? '' : html`<dt>Failed on</dt><dd><a href="${jobUrl({ queue: j.source_queue, id: j.source_id ?? '' })}">${j.source_queue} ${(j.source_id ?? '').slice(0, 8)}</a></dd>`}
</dl><p>${actions(j)} <a href="/admin/logs${qs({ job: j.id })}">log lines of this job</a> · <a href="/admin/api/queues/${encodeURIComponent(j.queue)}/jobs/${encodeURIComponent(j.id)}">JSON</a></p></div>
${failure(j)}
<h2>Data</h2><pre class="full" id="job-data">${JSON.stringify(j.data, null, 2)}</pre>
${j.output === null || j.output === undefined || j.error !== null ? '' : html`<h2>Output</h2><pre class="full">${JSON.stringify(j.output, null, 2)}</pre>`}`;
}

export const jobBody = (j: JobOut): Html => html`<h1>Job <code>${j.id}</code></h1>
<section id="job" data-live="${jobUrl(j)}?fragment=1" data-every="3000">${jobFragment(j)}</section>`;
