// Jobs: queues, then the jobs of one queue by state, with retry and cancel.
import type { JobOut, QueueOut } from '../admin.schemas.ts';
import { ago, html, qs, type Html } from './html.ts';

export interface JobsView {
  queues: QueueOut[];
  queue: string | null;
  state: string | null;
  jobs: JobOut[];
}

const states = ['created', 'retry', 'active', 'completed', 'cancelled', 'failed'];

/** The payload in one short line (ids mostly), so a job can be recognised without opening it. */
const preview = (data: unknown): string => {
  const text = JSON.stringify(data) ?? '';
  return text.length > 90 ? `${text.slice(0, 89)}…` : text;
};

const jobRow = (j: JobOut): Html => {
  const dead = j.queue.endsWith('.dead');
  // A job that failed for good has a copy in the dead-letter queue: that copy is the one to retry
  // (retrying both would run it twice).
  const retryable = dead && (j.state === 'created' || j.state === 'retry');
  const cancellable = !dead && (j.state === 'created' || j.state === 'retry');
  const base = `/admin/api/queues/${encodeURIComponent(j.queue)}/jobs/${encodeURIComponent(j.id)}`;
  return html`<tr data-job="${j.id}" class="state-${j.state}">
<td><code title="${j.id}">${j.id.slice(0, 8)}</code></td>
<td><span class="badge ${j.state}">${dead ? 'dead' : j.state}</span></td>
<td class="num">${dead ? j.attempts : `${j.attempts}/${j.retry_limit + 1}`}</td>
<td>${ago(j.created_at)}</td>
<td class="wrap">${j.error ?? ''}${j.source_queue === null ? '' : html` <small class="muted">from ${j.source_queue}</small>`}${j.state === 'failed' && !dead ? html` <small><a href="/admin/jobs${qs({ queue: `${j.queue}.dead` })}">retry from ${j.queue}.dead</a></small>` : ''}</td>
<td class="wrap"><code class="small">${preview(j.data)}</code><details><summary>data</summary><pre>${JSON.stringify(j.data, null, 1)}</pre></details></td>
<td class="actions">
${retryable ? html`<button data-action="${base}/retry" data-confirm="Run job ${j.id.slice(0, 8)} again?">Retry</button>` : ''}
${cancellable ? html`<button class="danger" data-action="${base}/cancel" data-confirm="Cancel job ${j.id.slice(0, 8)}? It will not run.">Cancel</button>` : ''}
</td></tr>`;
};

export function jobsFragment(v: JobsView): Html {
  return html`
<table class="queues"><thead><tr><th>Queue</th><th class="num">Waiting</th><th class="num">Running</th><th class="num">Failed</th><th class="num">Total</th></tr></thead>
<tbody>${v.queues.map((q) => html`<tr class="${q.name === v.queue ? 'selected' : ''} ${q.dead && q.queued > 0 ? 'bad' : ''}">
<td><a href="/admin/jobs${qs({ queue: q.name })}">${q.name}</a></td><td class="num">${q.queued}</td><td class="num">${q.active}</td><td class="num">${q.failed}</td><td class="num">${q.total}</td></tr>`)}</tbody></table>
${v.queue === null ? html`<p class="muted">Pick a queue to see its jobs. Jobs that failed for good wait in the <code>.dead</code> queues, where they can be retried.</p>` : html`
<h2>${v.queue}</h2>
<nav class="filters"><a href="/admin/jobs${qs({ queue: v.queue })}" class="${v.state === null ? 'active' : ''}">all</a>
${states.map((s) => html`<a href="/admin/jobs${qs({ queue: v.queue, state: s })}" class="${v.state === s ? 'active' : ''}">${s}</a>`)}</nav>
${v.jobs.length === 0 ? html`<p class="muted">No jobs.</p>` : html`<table class="jobs"><thead><tr><th>Job</th><th>State</th><th class="num">Attempts</th><th>Created</th><th>Last error</th><th>Data</th><th></th></tr></thead>
<tbody>${v.jobs.map(jobRow)}</tbody></table>`}`}`;
}

export const jobsBody = (v: JobsView, liveUrl: string): Html => html`<h1>Jobs</h1>
<section id="jobs" data-live="${liveUrl}" data-every="2000">${jobsFragment(v)}</section>`;
