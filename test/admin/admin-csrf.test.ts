// Cross-site request forgery: every state-changing admin route, found from the router itself
// (not a hand-picked list), refuses a request carrying the dashboard's session cookie unless it
// comes from the dashboard's own origin. The Bearer-token API (scripts) needs no such proof.
import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.ts';

const TOKEN = 'admin-token-for-csrf-tests-0123';
const daemon = await useTestDaemon({ env: { WAYBILL_ADMIN_TOKEN: TOKEN } });
const app = daemon.app!;
const bearer = { authorization: `Bearer ${TOKEN}` };
// inject's Host is localhost:80: the dashboard's origin is http://localhost.
const sameOrigin = { origin: 'http://localhost', 'sec-fetch-site': 'same-origin' };

const cookie = await (async () => {
  const res = await app.inject({
    method: 'POST',
    url: '/admin/login',
    payload: `token=${TOKEN}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...sameOrigin },
  });
  if (res.statusCode !== 303) throw new Error(`login answered ${res.statusCode}: ${res.body}`);
  return String(res.headers['set-cookie']).split(';')[0]!;
})();

/**
 * Every route under /admin with a method that changes state, read from the router's tree
 * (each line: 4 columns of indent per level, the segment, its methods).
 */
const stateChanging = (): { method: string; url: string }[] => {
  const out: { method: string; url: string }[] = [];
  const parents: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const m = /^([│ ]*)[├└]── (\S*)(?: \(([^)]+)\))?$/.exec(line);
    if (m === null) continue;
    const depth = m[1]!.length / 4;
    parents.length = depth;
    const url = parents.join('') + m[2]!;
    parents.push(m[2]!);
    if (!url.startsWith('/admin')) continue;
    for (const method of (m[3] ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)) {
      if (!['GET', 'HEAD', 'OPTIONS'].includes(method)) out.push({ method, url: url.replace(/:\w+/g, 'x1') });
    }
  }
  return out;
};

// What another site's page makes a browser send: another origin, same-site or not.
const forgeries: [string, Record<string, string>][] = [
  ['another site (Origin)', { origin: 'https://evil.example' }],
  ['another site (Sec-Fetch-Site)', { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' }],
  ['same site, another origin (Sec-Fetch-Site)', { origin: 'http://other.localhost', 'sec-fetch-site': 'same-site' }],
  ['same site, another port (Origin only)', { origin: 'http://localhost:8081' }],
  ['a sandboxed frame (Origin: null)', { origin: 'null' }],
  ['no proof of origin at all', {}],
];

describe('admin CSRF', () => {
  const routes = stateChanging();

  it('finds the admin routes that change state', () => {
    const ids = routes.map((r) => `${r.method} ${r.url}`);
    // The router's list, checked against the ones known today so the iteration is not empty.
    expect(ids).toEqual(
      expect.arrayContaining([
        'POST /admin/login',
        'POST /admin/logout',
        'POST /admin/api/shops',
        'POST /admin/api/keys',
        'POST /admin/api/keys/x1/revoke',
        'POST /admin/api/queues/x1/jobs/x1/retry',
        'POST /admin/api/queues/x1/jobs/x1/cancel',
        'POST /admin/api/feeds/x1/retry',
        'POST /admin/api/connectors/x1/run',
        'POST /admin/api/connectors/x1/enable',
        'POST /admin/api/connectors/x1/disable',
      ]),
    );
  });

  it('refuses every one of them with 403 when the session cookie comes from another origin', async () => {
    let checked = 0;
    for (const route of routes) {
      for (const [label, headers] of forgeries) {
        const res = await app.inject({ method: route.method as 'POST', url: route.url, headers: { cookie, ...headers } });
        expect(res.statusCode, `${route.method} ${route.url}, ${label}: ${res.body}`).toBe(403);
        expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(res.json()).toMatchObject({ status: 403, code: 'cross_origin' });
        checked++;
      }
    }
    expect(checked).toBe(routes.length * forgeries.length);
  });

  const keyOf = async (shopPk: number) =>
    (await app.inject({ method: 'POST', url: '/admin/api/keys', headers: bearer, payload: { shop_pk: shopPk } })).json() as {
      prefix: string;
    };
  const revokedAt = async (shopPk: number, prefix: string) =>
    (
      (await app.inject({ url: `/admin/api/keys?shop=${shopPk}`, headers: bearer })).json() as {
        prefix: string;
        revoked_at: string | null;
      }[]
    ).find((k) => k.prefix === prefix)?.revoked_at;
  const shopCount = async () => ((await app.inject({ url: '/admin/api/shops', headers: bearer })).json() as unknown[]).length;

  it('changes nothing on a refused request', async () => {
    const { shopPk } = await daemon.shopWithKey();
    const key = await keyOf(shopPk);
    const shops = await shopCount();
    for (const [, headers] of forgeries) {
      await app.inject({ method: 'POST', url: `/admin/api/keys/${key.prefix}/revoke`, headers: { cookie, ...headers } });
      await app.inject({ method: 'POST', url: '/admin/api/shops', headers: { cookie, ...headers }, payload: { name: 'Forged' } });
    }
    // The same route reached through an escaped path is the same route.
    const escaped = await app.inject({
      method: 'POST',
      url: `/%61dmin/api/keys/${key.prefix}/revoke`,
      headers: { cookie, origin: 'https://evil.example' },
    });
    expect(escaped.statusCode).toBe(403);
    expect(await revokedAt(shopPk, key.prefix)).toBeNull();
    expect(await shopCount()).toBe(shops);
    // A forged login or logout does nothing either: the session still works.
    expect((await app.inject({ url: '/admin/api/queues', headers: { cookie } })).statusCode).toBe(200);
  });

  it("accepts the dashboard's own requests: Sec-Fetch-Site same-origin, or an Origin of this server", async () => {
    const { shopPk } = await daemon.shopWithKey();
    const key = await keyOf(shopPk);
    const revoke = await app.inject({ method: 'POST', url: `/admin/api/keys/${key.prefix}/revoke`, headers: { cookie, ...sameOrigin } });
    expect(revoke.statusCode, revoke.body).toBe(200);
    expect(await revokedAt(shopPk, key.prefix)).not.toBeNull();
    // A browser that sends Origin but not Sec-Fetch-Site (older Safari).
    const created = await app.inject({
      method: 'POST',
      url: '/admin/api/shops',
      headers: { cookie, origin: 'http://localhost' },
      payload: { name: 'From the dashboard' },
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({ name: 'From the dashboard' });
  });

  it('keeps the Bearer API working for scripts, which send no Origin', async () => {
    const created = await app.inject({ method: 'POST', url: '/admin/api/shops', headers: bearer, payload: { name: 'From a script' } });
    expect(created.statusCode).toBe(201);
    // Without a session or token, a request is unauthenticated (401), not a forgery.
    const none = await app.inject({ method: 'POST', url: '/admin/api/shops', payload: { name: 'Nobody' } });
    expect(none.statusCode).toBe(401);
  });
});
