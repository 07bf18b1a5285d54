import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.ts';
import { until } from '../helpers/until.ts';

const TOKEN = 'admin-token-for-tests-0123456789';
const daemon = await useTestDaemon({ env: { WAYBILL_ADMIN_TOKEN: TOKEN } });
const app = daemon.app!;
const bearer = { authorization: `Bearer ${TOKEN}` };

// A shop's webhook receiver that refuses (410: permanent, so the job goes straight to the dead-letter queue).
const receiver = createServer((_req, res) => res.writeHead(410).end());
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
afterAll(() => new Promise<void>((r) => receiver.close(() => r())));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

describe('admin API auth', () => {
  const paths = [
    '/admin/api/overview',
    '/admin/api/queues',
    '/admin/api/logs',
    '/admin/api/shops',
    '/admin/api/keys',
    '/admin/api/queues/webhook.deliver/jobs',
  ];

  it('answers 401 problem JSON with WWW-Authenticate: Bearer without the token, a wrong one, or a shop key', async () => {
    const { key } = await daemon.shopWithKey();
    // Each wrong token from an address of its own: 10 from one address lock it out (429).
    let n = 0;
    for (const url of paths) {
      for (const headers of [
        {},
        { authorization: 'Bearer wrong-token-wrong-token-wrong' },
        { authorization: `Token ${key}` },
        { authorization: `Bearer ${key}` },
      ]) {
        const res = await app.inject({ url, headers, remoteAddress: `198.18.${Math.floor(n / 250)}.${n++ % 250}` });
        expect(res.statusCode, url).toBe(401);
        expect(res.headers['www-authenticate']).toBe('Bearer');
        expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(res.json()).toMatchObject({ status: 401, code: 'unauthorized' });
      }
    }
    const post = await app.inject({ method: 'POST', url: '/admin/api/shops', payload: { name: 'x' } });
    expect(post.statusCode).toBe(401);
  });

  it('takes the token as Bearer, and the dashboard session cookie set by the login form', async () => {
    expect((await app.inject({ url: '/admin/api/queues', headers: bearer })).statusCode).toBe(200);
    const login = await app.inject({
      method: 'POST',
      url: '/admin/login',
      payload: `token=${TOKEN}&next=%2Fadmin%2Fjobs`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(login.statusCode).toBe(303);
    expect(login.headers.location).toBe('/admin/jobs');
    const cookie = String(login.headers['set-cookie']);
    expect(cookie).toMatch(/^waybill_admin=[\w-]+\.[\w+/-]+; Max-Age=43200; Path=\/admin; HttpOnly; SameSite=Strict$/);
    expect(cookie).not.toContain(TOKEN);
    const session = cookie.split(';')[0]!;
    expect((await app.inject({ url: '/admin/api/queues', headers: { cookie: session } })).statusCode).toBe(200);
    expect((await app.inject({ url: '/admin/api/queues', headers: { cookie: 'waybill_admin=forged' } })).statusCode).toBe(401);
  });

  it('refuses a wrong token on the login form and redirects pages without a session to it', async () => {
    const bad = await app.inject({
      method: 'POST',
      url: '/admin/login',
      payload: 'token=nope',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(bad.statusCode).toBe(401);
    expect(bad.headers['set-cookie']).toBeUndefined();
    expect(bad.body).toContain('That token is not the admin token.');
    const page = await app.inject({ url: '/admin/jobs?queue=webhook.deliver', headers: { accept: 'text/html' } });
    expect(page.statusCode).toBe(303);
    expect(page.headers.location).toBe('/admin/login?next=%2Fadmin%2Fjobs%3Fqueue%3Dwebhook.deliver');
    const form = await app.inject({ url: '/admin/login', headers: { accept: 'text/html' } });
    expect(form.statusCode).toBe(200);
    expect(form.headers['content-security-policy']).toContain("script-src 'self'");
    expect(form.headers['x-frame-options']).toBe('DENY');
    expect(form.body).toMatch(/<input type="password" name="token"/);
  });
});

describe('admin API endpoints', () => {
  it('GET /admin/api/queues lists the work and dead-letter queues with counts', async () => {
    const res = await app.inject({ url: '/admin/api/queues', headers: bearer });
    const queues = res.json() as { name: string; dead: boolean; queued: number }[];
    expect(queues.map((q) => q.name)).toEqual(expect.arrayContaining(['webhook.deliver', 'webhook.deliver.dead']));
    expect(queues.find((q) => q.name === 'webhook.deliver.dead')).toMatchObject({
      dead: true,
      queued: 0,
      active: 0,
      oldest_age_seconds: 0,
    });
    expect((await app.inject({ url: '/admin/api/queues/nope/jobs', headers: bearer })).statusCode).toBe(404);
  });

  it('shows a dead job with its error and attempts, retries it, and cancels a waiting one', async () => {
    // A shop whose webhook URL refuses: the delivery fails permanently (4xx) and goes to the dead-letter queue.
    const { shopPk } = await daemon.shopWithKey({ webhook_url: receiverUrl });
    await daemon.jobs.send(daemon.connection.db, 'webhook.deliver', {
      shopPk,
      messageId: 'msg_dead',
      event: 'feed.completed',
      payload: {},
    });
    const dead = await until('the dead job', async () => {
      const jobs = (await app.inject({ url: '/admin/api/queues/webhook.deliver.dead/jobs', headers: bearer })).json() as {
        id: string;
        state: string;
        error: string | null;
        source_queue: string | null;
        source_id: string;
        attempts: number;
      }[];
      return jobs.find((j) => (j as unknown as { data: { messageId: string } }).data.messageId === 'msg_dead');
    });
    expect(dead).toMatchObject({ state: 'created', source_queue: 'webhook.deliver', attempts: 1 });
    expect(dead.error).toEqual(expect.any(String));
    const one = await app.inject({ url: `/admin/api/queues/webhook.deliver.dead/jobs/${dead.id}`, headers: bearer });
    expect(one.json()).toMatchObject({ id: dead.id, queue: 'webhook.deliver.dead' });

    const overview = (await app.inject({ url: '/admin/api/overview', headers: bearer })).json() as {
      jobs: { dead: number };
      shops: number;
      charts: { queue_depth: unknown[] };
    };
    expect(overview.jobs.dead).toBeGreaterThanOrEqual(1);
    expect(overview.shops).toBeGreaterThanOrEqual(1);
    expect(overview.charts.queue_depth.length).toBeGreaterThan(30);

    // The failed original in its work queue points to its dead copy instead of running twice.
    const original = await app.inject({
      method: 'POST',
      url: `/admin/api/queues/webhook.deliver/jobs/${dead.source_id}/retry`,
      headers: bearer,
    });
    expect(original.statusCode).toBe(409);
    expect(original.json()).toMatchObject({ code: 'not_retryable', dead_copy: { queue: 'webhook.deliver.dead', id: dead.id } });

    const retry = await app.inject({
      method: 'POST',
      url: `/admin/api/queues/webhook.deliver.dead/jobs/${dead.id}/retry`,
      headers: bearer,
    });
    expect(retry.statusCode).toBe(200);
    expect(retry.json()).toMatchObject({ ok: true, detail: expect.stringContaining('webhook.deliver') });
    const gone = await app.inject({ url: `/admin/api/queues/webhook.deliver.dead/jobs/${dead.id}`, headers: bearer });
    expect(gone.statusCode).toBe(404);
    const again = await app.inject({
      method: 'POST',
      url: `/admin/api/queues/webhook.deliver.dead/jobs/${dead.id}/retry`,
      headers: bearer,
    });
    expect(again.statusCode).toBe(404);

    // A job that waits (starts in an hour) can be cancelled once; then 409.
    const id = await daemon.jobs.send(
      daemon.connection.db,
      'webhook.deliver',
      { shopPk, messageId: 'msg_later', event: 'feed.completed', payload: {} },
      { startAfter: new Date(Date.now() + 3_600_000) },
    );
    const queued = (await app.inject({ url: '/admin/api/queues/webhook.deliver/jobs?state=created', headers: bearer })).json() as {
      id: string;
    }[];
    expect(queued.map((j) => j.id)).toContain(id);
    const cancel = await app.inject({ method: 'POST', url: `/admin/api/queues/webhook.deliver/jobs/${id}/cancel`, headers: bearer });
    expect(cancel.statusCode).toBe(200);
    const twice = await app.inject({ method: 'POST', url: `/admin/api/queues/webhook.deliver/jobs/${id}/cancel`, headers: bearer });
    expect(twice.statusCode).toBe(409);
    expect(twice.json()).toMatchObject({ code: 'not_cancellable' });
    const retryCancelled = await app.inject({ method: 'POST', url: `/admin/api/queues/webhook.deliver/jobs/${id}/retry`, headers: bearer });
    expect(retryCancelled.statusCode).toBe(409);
  });

  it('GET /admin/api/logs filters the stored lines by request id, level and text, and tails after a seq', async () => {
    type Lines = { lines: { seq: number; msg: string; level: string; fields: Record<string, unknown> }[]; last_seq: number };
    const logs = async (query: string): Promise<Lines> =>
      (await app.inject({ url: `/admin/api/logs?${query}`, headers: bearer })).json() as Lines;
    await app.inject({ url: '/healthz', headers: { 'x-request-id': 'admin-log-probe' } });
    // Lines reach the database in batches, off the request path: a moment later.
    const res = await until("the probe request's line", async () => {
      const r = await logs('request=admin-log-probe');
      return r.lines.length > 0 ? r : undefined;
    });
    expect(res.lines.every((l) => l.fields.reqId === 'admin-log-probe')).toBe(true);
    // One line per request: method, path, status and time taken.
    expect(res.lines.filter((l) => l.msg === 'request').map((l) => l.fields)).toEqual([
      expect.objectContaining({ method: 'GET', path: '/healthz', status: 200, ms: expect.any(Number), pid: process.pid }),
    ]);
    expect((await logs(`after=${res.last_seq}&request=admin-log-probe`)).lines).toEqual([]);
    const errors = await logs('level=error');
    expect(errors.lines.every((l) => l.level === 'error' || l.level === 'fatal')).toBe(true);
    expect((await logs('q=%2Fhealthz&request=admin-log-probe')).lines.length).toBe(1);
    // The dashboard's polling reads are not logged at info; its actions are.
    await app.inject({ url: '/admin/api/queues', headers: { ...bearer, 'x-request-id': 'admin-poll-probe' } });
    await app.inject({ url: '/admin/jobs', headers: { ...bearer, accept: 'text/html', 'x-request-id': 'admin-poll-probe' } });
    await app.inject({
      method: 'POST',
      url: '/admin/api/keys/wb_nokey/revoke',
      headers: { ...bearer, 'x-request-id': 'admin-action-probe' },
    });
    const action = await until("the action's line", async () => {
      const r = await logs('request=admin-action-probe');
      return r.lines.length > 0 ? r : undefined;
    });
    expect(action.lines.map((l) => l.fields)).toContainEqual(
      expect.objectContaining({ method: 'POST', path: '/admin/api/keys/wb_nokey/revoke', status: 404 }),
    );
    // Stored in the order logged: the polls, logged before the action, would be there by now.
    expect((await logs('request=admin-poll-probe')).lines).toEqual([]);
    const bad = await app.inject({ url: '/admin/api/logs?level=loud', headers: bearer });
    expect(bad.statusCode).toBe(400);
  });

  it('creates shops and keys, and revokes a key once', async () => {
    const shop = await app.inject({ method: 'POST', url: '/admin/api/shops', headers: bearer, payload: { name: 'Admin-made shop' } });
    expect(shop.statusCode).toBe(201);
    const { pk } = shop.json() as { pk: number };
    const key = await app.inject({ method: 'POST', url: '/admin/api/keys', headers: bearer, payload: { shop_pk: pk, label: 'erp' } });
    expect(key.statusCode).toBe(201);
    const created = key.json() as { key: string; prefix: string };
    expect(created.key.startsWith(created.prefix)).toBe(true);
    const keys = (await app.inject({ url: `/admin/api/keys?shop=${pk}`, headers: bearer })).json() as {
      prefix: string;
      revoked_at: string | null;
      key?: string;
    }[];
    expect(keys).toEqual([expect.objectContaining({ prefix: created.prefix, label: 'erp', revoked_at: null })]);
    expect(keys[0]!.key).toBeUndefined();
    expect((await daemon.services.shops.authenticate(created.key))?.shopPk).toBe(pk);
    const revoke = await app.inject({ method: 'POST', url: `/admin/api/keys/${created.prefix}/revoke`, headers: bearer });
    expect(revoke.statusCode).toBe(200);
    expect(revoke.json()).toMatchObject({ prefix: created.prefix, revoked_at: expect.any(String) });
    expect(await daemon.services.shops.authenticate(created.key)).toBeNull();
    expect((await app.inject({ method: 'POST', url: `/admin/api/keys/${created.prefix}/revoke`, headers: bearer })).statusCode).toBe(409);
    expect((await app.inject({ method: 'POST', url: '/admin/api/keys', headers: bearer, payload: { shop_pk: 424242 } })).statusCode).toBe(
      404,
    );
    const invalid = await app.inject({ method: 'POST', url: '/admin/api/shops', headers: bearer, payload: { name: '' } });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json()).toMatchObject({ errors: [{ pointer: '/name' }] });
  });
});

describe('/metrics', () => {
  it('exposes HTTP, queue and pool metrics in Prometheus text format', async () => {
    await app.inject({ url: '/healthz' });
    const res = await app.inject({
      url: '/metrics',
      headers: { accept: 'application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.body).toMatch(/waybill_http_requests_total\{route="\/healthz",method="GET",status="200",service="waybill"\} \d+/);
    expect(res.body).toMatch(/waybill_http_request_duration_seconds_bucket\{[^}]*le="0.005"[^}]*route="\/healthz"[^}]*\} \d+/);
    expect(res.body).toMatch(/waybill_job_queue_depth\{queue="webhook.deliver",service="waybill"\} \d+/);
    expect(res.body).toMatch(/waybill_job_queue_oldest_age_seconds\{queue="webhook.deliver.dead",service="waybill"\} [\d.]+/);
    expect(res.body).toMatch(/waybill_db_pool_connections\{state="max",service="waybill"\} 20/);
    expect(res.body).toContain('# TYPE waybill_carrier_api_calls_total counter');
    expect(res.body).toContain('# TYPE waybill_connector_runs_total counter');
    expect(res.body).toContain('# TYPE waybill_feed_items_total counter');
  });

  it('counts feed items as their chunks commit, by type and outcome', async () => {
    const shop = await daemon.shopWithKey({ name: 'Metrics' });
    const post = await app.inject({
      method: 'POST',
      url: `/shops/${shop.shopPk}/products/`,
      headers: { ...shop.auth, 'content-type': 'application/json' },
      payload: [
        { sku: 'M-1', name: 'One', price: 1, stock: 1 },
        { sku: 'M-2', name: 'Two', price: 2, stock: 2 },
      ],
    });
    expect(post.statusCode).toBe(201);
    const path = new URL(post.headers.location as string).pathname;
    await until(
      'the feed done',
      async () => (await app.inject({ url: path, headers: shop.auth })).json<{ state: string }>().state === 'done',
    );
    const body = (await app.inject({ url: '/metrics' })).body;
    const m = /waybill_feed_items_total\{type="product_create",outcome="succeeded",service="waybill"\} (\d+)/.exec(body);
    expect(Number(m?.[1])).toBeGreaterThanOrEqual(2);
  });
});
