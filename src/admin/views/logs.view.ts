// Logs: the recent lines of this process with filters; the script tails new lines live.
import type { LogQueryT, LogsOut } from '../admin.schemas.ts';
import { html, type Html } from './html.ts';

const levels = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'];
const ID_KEYS = ['reqId', 'feedPk', 'runId', 'jobId', 'connector', 'job'];

export const logRow = (l: LogsOut['lines'][number]): Html => {
  const ids = ID_KEYS.filter((k) => l.fields[k] !== undefined).map((k) => `${k}=${String(l.fields[k])}`).join(' ');
  const { service: _s, pid: _p, hostname: _h, ...rest } = l.fields;
  return html`<tr class="lvl-${l.level}" data-seq="${l.seq}"><td class="nowrap">${l.time.slice(11, 23)}</td><td><span class="badge ${l.level}">${l.level}</span></td>
<td class="wrap">${l.msg}<small class="muted ids">${ids}</small></td><td><details><summary>fields</summary><pre>${JSON.stringify(rest, null, 1)}</pre></details></td></tr>`;
};

export function logsBody(query: LogQueryT, logs: LogsOut): Html {
  const field = (name: 'feed' | 'run' | 'request' | 'job' | 'q', label: string): Html =>
    html`<label>${label} <input name="${name}" value="${query[name] ?? ''}" size="14"></label>`;
  return html`<h1>Logs</h1>
<form class="filters" method="get" action="/admin/logs" id="log-filters">
<label>Level <select name="level"><option value="">any</option>${levels.map((l) => html`<option${query.level === l ? html` selected` : ''}>${l}</option>`)}</select></label>
${field('feed', 'Feed')} ${field('run', 'Run')} ${field('request', 'Request')} ${field('job', 'Job')} ${field('q', 'Text')}
<button type="submit">Filter</button> <label class="inline"><input type="checkbox" id="follow" checked> live</label>
</form>
<p class="muted small">The last ${logs.capacity} lines of this process are kept in memory; stdout has them all.</p>
<table class="logs"><thead><tr><th>Time (UTC)</th><th>Level</th><th>Message</th><th></th></tr></thead>
<tbody id="log-lines" data-tail="/admin/api/logs" data-after="${logs.last_seq}">${logs.lines.map(logRow)}</tbody></table>`;
}
