// The dashboard's session: a server-side row per login, so logging out ends it on every
// replica, it expires (idle and absolute), changing the admin token ends every session, the
// cookie is Secure when the request came over TLS (a proxy's X-Forwarded-Proto counts only
// when WAYBILL_TRUST_PROXY says so), and failed logins are throttled per client address.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { useTestDaemon, type TestDaemon } from '../helpers/daemon.ts';

const TOKEN = 'admin-token-for-session-tests-01';
const daemon = await useTestDaemon({ env: { WAYBILL_ADMIN_TOKEN: TOKEN } });
const app = daemon.app!;

// What a browser on the dashboard's own pages sends with a POST (inject's Host is localhost:80).
const sameOrigin = { origin: 'http://localhost', 'sec-fetch-site': 'same-origin' };
const form = { 'content-type': 'application/x-www-form-urlencoded' };

interface SetCookie {
  name: string;
  value: string;
  attributes: string[];
}
const parseSetCookie = (header: string | string[] | undefined): SetCookie => {
  const line = Array.isArray(header) ? header[0]! : String(header);
  const [pair, ...attributes] = line.split(';').map((s) => s.trim());
  const eq = pair!.indexOf('=');
  return { name: pair!.slice(0, eq), value: pair!.slice(eq + 1), attributes };
};

const login = async (target: TestDaemon = daemon, headers: Record<string, string> = {}, token = TOKEN) =>
  target.app!.inject({
    method: 'POST',
    url: '/admin/login',
    payload: `token=${encodeURIComponent(token)}`,
    headers: { ...form, ...sameOrigin, ...headers },
  });

/** Logs in and returns the Cookie header value of the session. */
const session = async (target: TestDaemon = daemon): Promise<string> => {
  const res = await login(target);
  expect(res.statusCode, res.body).toBe(303);
  const c = parseSetCookie(res.headers['set-cookie']);
  return `${c.name}=${c.value}`;
};

const status = async (cookie: string, target: TestDaemon = daemon): Promise<number> =>
  (await target.app!.inject({ url: '/admin/api/queues', headers: { cookie } })).statusCode;

describe('admin session', () => {
  it('sets an HttpOnly, SameSite=Strict cookie on /admin lasting 12 h that holds no token', async () => {
    const res = await login();
    expect(res.statusCode).toBe(303);
    const c = parseSetCookie(res.headers['set-cookie']);
    expect(c.name).toBe('waybill_admin');
    expect(c.value).not.toContain(TOKEN);
    expect(c.attributes).toEqual(expect.arrayContaining(['Max-Age=43200', 'Path=/admin', 'HttpOnly', 'SameSite=Strict']));
    expect(c.attributes).not.toContain('Secure');
    // Two logins are two sessions, not one value derived from the token.
    expect(parseSetCookie((await login()).headers['set-cookie']).value).not.toBe(c.value);
  });

  it('refuses the old cookie after logout, on this replica and on another one', async () => {
    const replica = await useTestDaemon({ role: 'api', env: { WAYBILL_ADMIN_TOKEN: TOKEN }, database: daemon.database });
    const cookie = await session();
    expect(await status(cookie)).toBe(200);
    expect(await status(cookie, replica)).toBe(200);
    const out = await app.inject({ method: 'POST', url: '/admin/logout', headers: { cookie, ...sameOrigin } });
    expect(out.statusCode).toBe(303);
    expect(out.headers.location).toBe('/admin/login');
    const cleared = parseSetCookie(out.headers['set-cookie']);
    expect(cleared).toMatchObject({ name: 'waybill_admin', value: '' });
    expect(cleared.attributes).toContain('Max-Age=0');
    // A browser that kept the cookie (or anyone who copied it) gets nothing more anywhere.
    expect(await status(cookie)).toBe(401);
    expect(await status(cookie, replica)).toBe(401);
    const page = await app.inject({ url: '/admin/', headers: { cookie, accept: 'text/html' } });
    expect(page.statusCode).toBe(303);
    expect(page.headers.location).toMatch(/^\/admin\/login/);
  });

  it('refuses a session idle for more than 30 minutes, and one older than 12 hours however active', async () => {
    const db = daemon.connection.db;
    const idle = await session();
    const busy = await session();
    expect(await status(idle)).toBe(200);
    expect(await status(busy)).toBe(200);
    // Time passes: the idle one was last used 31 minutes ago, the busy one used a second ago
    // but started 12 hours and a minute ago.
    const rows = await sql<{ n: number }>`select count(*)::int as n from admin_sessions`.execute(db);
    expect(rows.rows[0]!.n).toBeGreaterThanOrEqual(2);
    await sql`update admin_sessions set last_seen_at = now() - interval '31 minutes'`.execute(db);
    expect(await status(idle)).toBe(401);
    await sql`update admin_sessions set last_seen_at = now(), created_at = now() - interval '12 hours 1 minute', expires_at = now() - interval '1 minute'`.execute(
      db,
    );
    expect(await status(busy)).toBe(401);
  });

  it('keeps a session in use alive: a request within the idle limit moves it on', async () => {
    const db = daemon.connection.db;
    const cookie = await session();
    await sql`update admin_sessions set last_seen_at = now() - interval '29 minutes' where expires_at > now()`.execute(db);
    expect(await status(cookie)).toBe(200);
    await sql`update admin_sessions set last_seen_at = last_seen_at - interval '2 minutes' where expires_at > now()`.execute(db);
    // 31 minutes after the first use, but 2 since the last: still valid.
    expect(await status(cookie)).toBe(200);
  });

  it('ends every session when the admin token changes', async () => {
    const cookie = await session();
    expect(await status(cookie)).toBe(200);
    const rotated = await useTestDaemon({
      role: 'api',
      env: { WAYBILL_ADMIN_TOKEN: 'the-new-admin-token-0123456789' },
      database: daemon.database,
    });
    expect(await status(cookie, rotated)).toBe(401);
  });
});

describe('Secure cookie and the trust-proxy setting', () => {
  const https = { 'x-forwarded-proto': 'https' };

  it('ignores X-Forwarded-Proto unless WAYBILL_TRUST_PROXY is set', async () => {
    const res = await login(daemon, https);
    expect(res.statusCode).toBe(303);
    expect(parseSetCookie(res.headers['set-cookie']).attributes).not.toContain('Secure');
  });

  it('marks the cookie Secure behind a trusted TLS proxy, and only for requests that came over TLS', async () => {
    const proxied = await useTestDaemon({
      role: 'api',
      env: { WAYBILL_ADMIN_TOKEN: TOKEN, WAYBILL_TRUST_PROXY: '127.0.0.1' },
      database: daemon.database,
    });
    // The browser's Origin is the proxy's https origin.
    const tls = await login(proxied, { ...https, origin: 'https://localhost' });
    expect(tls.statusCode, tls.body).toBe(303);
    expect(parseSetCookie(tls.headers['set-cookie']).attributes).toContain('Secure');
    const plain = await login(proxied, { 'x-forwarded-proto': 'http' });
    expect(parseSetCookie(plain.headers['set-cookie']).attributes).not.toContain('Secure');
    // A proxy that is not the trusted address: its header does not count.
    const other = await proxied.app!.inject({
      method: 'POST',
      url: '/admin/login',
      remoteAddress: '10.9.8.7',
      payload: `token=${TOKEN}`,
      headers: { ...form, ...sameOrigin, ...https },
    });
    expect(other.statusCode).toBe(303);
    expect(parseSetCookie(other.headers['set-cookie']).attributes).not.toContain('Secure');
  });
});

describe('login throttling', () => {
  const attempt = (remoteAddress: string, token: string) =>
    app.inject({
      method: 'POST',
      url: '/admin/login',
      remoteAddress,
      payload: `token=${encodeURIComponent(token)}`,
      headers: { ...form, ...sameOrigin },
    });

  it('answers 429 with Retry-After to the 11th failed login from one address within 15 minutes', async () => {
    const address = '192.0.2.10';
    for (let i = 0; i < 10; i++) {
      const res = await attempt(address, `wrong-token-${i}`);
      expect(res.statusCode, `attempt ${i + 1}`).toBe(401);
    }
    const blocked = await attempt(address, 'wrong-token-11');
    expect(blocked.statusCode).toBe(429);
    const retryAfter = Number(blocked.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    expect(blocked.headers['content-type']).toMatch(/^text\/html/);
    expect(blocked.body).toContain('Too many login attempts');
    expect(blocked.headers['set-cookie']).toBeUndefined();
    // While throttled even the right token waits: the throttle must not tell a guesser it found it.
    const right = await attempt(address, TOKEN);
    expect(right.statusCode).toBe(429);
    expect(right.headers['set-cookie']).toBeUndefined();
    // Another address is not affected.
    expect((await attempt('192.0.2.11', TOKEN)).statusCode).toBe(303);
  });

  const bearer = (remoteAddress: string, token: string) =>
    app.inject({ url: '/admin/api/shops', remoteAddress, headers: { authorization: `Bearer ${token}` } });

  it('one throttle for every way the token comes: Bearer failures lock out the login form, and the reverse', async () => {
    const address = '192.0.2.20';
    for (let i = 0; i < 10; i++) expect((await bearer(address, `wrong-${i}`)).statusCode, `attempt ${i + 1}`).toBe(401);
    const blocked = await bearer(address, 'wrong-10');
    expect(blocked.statusCode).toBe(429);
    expect(blocked.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect(blocked.json()).toMatchObject({ code: 'too_many_attempts' });
    // The right token waits too, by Bearer and by the form.
    expect((await bearer(address, TOKEN)).statusCode).toBe(429);
    expect((await attempt(address, TOKEN)).statusCode).toBe(429);
    // Failures at the form lock out the Bearer token of that address.
    const other = '192.0.2.21';
    for (let i = 0; i < 10; i++) expect((await attempt(other, `wrong-${i}`)).statusCode).toBe(401);
    expect((await bearer(other, TOKEN)).statusCode).toBe(429);
    // A cookie this daemon did not sign counts as a wrong token.
    const third = '192.0.2.22';
    for (let i = 0; i < 10; i++) {
      const res = await app.inject({ url: '/admin/api/shops', remoteAddress: third, headers: { cookie: `waybill_admin=forged${i}.abc` } });
      expect(res.statusCode).toBe(401);
    }
    expect((await bearer(third, TOKEN)).statusCode).toBe(429);
    // Another address is not affected.
    expect((await bearer('192.0.2.23', TOKEN)).statusCode).toBe(200);
  });
});
