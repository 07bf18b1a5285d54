// Logs: the recent lines of every process (log_lines) with filters; the script tails new rows,
// rendered here too (?fragment=1&after=<seq>).
import type { LogQueryT, LogsOut } from '../admin.schemas.ts';
import { at, html, qs, type Html } from './html.ts';

const levels = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'];

/** A request's line: method, path, status and time taken, in one glance. */
const requestOf = (f: Record<string, unknown>): Html | '' =>
  typeof f.method === 'string' && typeof f.path === 'string'
    ? html`<code class="req">${f.method} ${f.path}</code> <span class="badge ${Number(f.status) >= 500 ? 'error' : Number(f.status) >= 400 ? 'warn' : 'info'}">${String(f.status)}</span> <small>${String(f.ms)} ms</small> `
    : '';

const idLinks = (f: Record<string, unknown>): Html[] => {
  const links: Html[] = [];
  const add = (value: unknown, param: string, label: string) => {
    if (typeof value === 'string' || typeof value === 'number')
      links.push(html`<a href="/admin/logs${qs({ [param]: String(value) })}">${label} ${String(value).slice(0, 12)}</a> `);
  };
  add(f.reqId, 'request', 'request');
  add(f.feedPk, 'feed', 'feed');
  add(f.runId, 'run', 'run');
  add(f.jobId, 'job', 'job');
  return links;
};

export const logRow = (l: LogsOut['lines'][number]): Html => {
  const { service: _s, ...rest } = l.fields;
  return html`<tr class="lvl-${l.level}" data-seq="${l.seq}"><td class="nowrap">${at(l.time)}</td><td><span class="badge ${l.level}">${l.level}</span></td>
<td class="wrap">${requestOf(l.fields)}${requestOf(l.fields) !== '' && l.msg === 'request' ? '' : l.msg}<small class="muted ids">${idLinks(l.fields)}${typeof l.fields.hostname === 'string' ? `${l.fields.hostname}:${String(l.fields.pid ?? '')}` : ''}</small></td><td><details><summary>fields</summary><pre>${JSON.stringify(rest, null, 1)}</pre></details></td></tr>`;
};

/** Lines a page shows; older ones are on the next pages. */
export const LOGS_PAGE_SIZE = 100;

/** Rows newest first: the page's order, and the live tail's (put on top). */
export const logRows = (lines: LogsOut['lines']): Html[] => [...lines].reverse().map(logRow);

export function logsBody(query: LogQueryT, logs: LogsOut): Html {
  const field = (name: 'feed' | 'run' | 'request' | 'job' | 'q', label: string): Html =>
    html`<label>${label} <input name="${name}" value="${query[name] ?? ''}" size="14"></label>`;
  const { before, after: _after, limit: _limit, ...filters } = query;
  const oldest = logs.lines[0]?.seq;
  const more = logs.lines.length >= LOGS_PAGE_SIZE && oldest !== undefined;
  const pages = html`<nav class="filters log-pages">${before === undefined ? '' : html`<a href="/admin/logs${qs(filters)}" id="logs-newest">← newest</a>`}
${more ? html`<a href="/admin/logs${qs({ ...filters, before: oldest })}" id="logs-older">older →</a>` : ''}</nav>`;
  return html`<h1>Logs</h1>
<form class="filters" method="get" action="/admin/logs" id="log-filters">
<label>Level <select name="level"><option value="">any</option>${levels.map((l) => html`<option${query.level === l ? html` selected` : ''} value="${l}">${l} and above</option>`)}</select></label>
${field('request', 'Request id')} ${field('feed', 'Feed')} ${field('run', 'Connector run')} ${field('job', 'Job')} ${field('q', 'Text')}
<button type="submit">Filter</button> ${before === undefined ? html`<label class="inline"><input type="checkbox" id="follow" checked> live</label>` : ''}
</form>
<p class="muted small">Lines of every process (API, workers, scheduler), newest first, ${LOGS_PAGE_SIZE} a page${before === undefined ? '; new lines appear on top while live is on' : ''}; the newest ${logs.capacity.toLocaleString('en')} are kept in the database, stdout has them all.${logs.dropped === 0 ? '' : ` This process could not store ${logs.dropped} lines (the database was away).`}</p>
<table class="logs"><thead><tr><th>Time</th><th>Level</th><th>Message</th><th></th></tr></thead>
<tbody id="log-lines"${before === undefined ? html` data-tail="/admin/logs" data-after="${logs.last_seq}"` : ''}>${logRows(logs.lines)}</tbody></table>
${logs.lines.length === 0 ? html`<p class="muted" id="no-lines">No line matches.</p>` : ''}
${pages}`;
}
