// Authentication, and every error status of the foundation with its problem body, on a real
// documented route (/shops/{shop}/products/).
import http from 'node:http';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { startTestDaemon, useTestDaemon } from '../helpers/daemon.ts';

const daemon = await useTestDaemon({ env: { WAYBILL_BODY_LIMIT: '4096' } });
const app = daemon.app!;
const a = await daemon.shopWithKey({ name: 'A' });
const b = await daemon.shopWithKey({ name: 'B' });
const product = { sku: 'A1', name: 'Shirt', price: 10.5, stock: 3 };
const json = { 'content-type': 'application/json', accept: 'application/json' };

const problem = (res: { statusCode: number; headers: Record<string, unknown>; json(): unknown }, status: number, code: string) => {
  expect(res.statusCode).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = res.json() as Record<string, unknown>;
  expect(body).toMatchObject({ status, code });
  expect(body.request_id).toBe(res.headers['x-request-id']);
  return body;
};

describe('authentication', () => {
  it('401 with WWW-Authenticate when the key is missing, malformed or unknown', async () => {
    for (const authorization of [undefined, 'Bearer x', `Token wb_${'x'.repeat(40)}`, 'Token']) {
      const res = await app.inject({
        method: 'GET',
        url: `/shops/${a.shopPk}/products/`,
        headers: authorization === undefined ? {} : { authorization },
      });
      problem(res, 401, 'unauthorized');
      expect(res.headers['www-authenticate']).toBe('Token');
    }
  });

  it("accepts the shop's own key", async () => {
    const res = await app.inject({ method: 'GET', url: `/shops/${a.shopPk}/products/`, headers: a.auth });
    expect(res.statusCode).toBe(200);
  });

  it("answers 404, never data, for another shop's key, as for a shop that does not exist", async () => {
    const other = await app.inject({ method: 'GET', url: `/shops/${b.shopPk}/products/`, headers: a.auth });
    const missing = await app.inject({ method: 'GET', url: '/shops/999999/products/', headers: a.auth });
    const o = problem(other, 404, 'not_found');
    const m = problem(missing, 404, 'not_found');
    expect(Object.keys(o).sort()).toEqual(Object.keys(m).sort());
    const write = await app.inject({
      method: 'POST',
      url: `/shops/${b.shopPk}/products/`,
      headers: { ...a.auth, ...json },
      payload: product,
    });
    problem(write, 404, 'not_found');
  });

  it('refuses a revoked key at once', async () => {
    const shop = await daemon.shopWithKey({ name: 'C' });
    const ok = await app.inject({ method: 'GET', url: `/shops/${shop.shopPk}/products/`, headers: shop.auth });
    expect(ok.statusCode).toBe(200);
    await daemon.services.shops.revokeKey(shop.key.slice(0, 11));
    problem(await app.inject({ method: 'GET', url: `/shops/${shop.shopPk}/products/`, headers: shop.auth }), 401, 'unauthorized');
  });
});

describe('error statuses, each as problem JSON', () => {
  it('405 with the exact Allow header, and OPTIONS answering with it', async () => {
    const res = await app.inject({ method: 'PATCH', url: `/shops/${a.shopPk}/products/`, headers: { ...a.auth, ...json }, payload: {} });
    problem(res, 405, 'method_not_allowed');
    expect(res.headers.allow).toBe('GET, POST, PUT, DELETE, OPTIONS');
    const options = await app.inject({ method: 'OPTIONS', url: `/shops/${a.shopPk}/products/` });
    expect(options.statusCode).toBe(204);
    expect(options.headers.allow).toBe('GET, POST, PUT, DELETE, OPTIONS');
  });

  it('406 when the client accepts no JSON', async () => {
    problem(
      await app.inject({ method: 'GET', url: `/shops/${a.shopPk}/products/`, headers: { ...a.auth, accept: 'text/csv' } }),
      406,
      'not_acceptable',
    );
  });

  it('413 for a body over the limit', async () => {
    const big = Array.from({ length: 60 }, (_, i) => ({ ...product, sku: `S${i}`, description: 'x'.repeat(100) }));
    problem(
      await app.inject({ method: 'POST', url: `/shops/${a.shopPk}/products/`, headers: { ...a.auth, ...json }, payload: big }),
      413,
      'body_too_large',
    );
  });

  it('415 for a body that is not JSON, 400 for malformed JSON', async () => {
    problem(
      await app.inject({
        method: 'POST',
        url: `/shops/${a.shopPk}/products/`,
        headers: { ...a.auth, 'content-type': 'text/plain' },
        payload: 'sku=A1',
      }),
      415,
      'unsupported_media_type',
    );
    problem(
      await app.inject({ method: 'POST', url: `/shops/${a.shopPk}/products/`, headers: { ...a.auth, ...json }, payload: '[{"sku": "A1",' }),
      400,
      'invalid_json',
    );
  });

  it('400 lists every invalid field of every item by JSON pointer', async () => {
    const res = await app.inject({
      method: 'POST',
      url: `/shops/${a.shopPk}/products/`,
      headers: { ...a.auth, ...json },
      payload: [
        { sku: 'OK', name: 'Fine', price: 1, stock: 1 },
        { name: 'No sku', price: '10', stock: 1 },
        { sku: 'X', name: 'Y', price: 1, stock: -1 },
      ],
    });
    const body = problem(res, 400, 'validation_failed');
    const pointers = (body.errors as { pointer: string }[]).map((e) => e.pointer);
    expect(pointers).toEqual(expect.arrayContaining(['/1/sku', '/1/price', '/2/stock']));
    expect(pointers).not.toContain('/0/sku');
  });

  it('a 500 carries no internals in its body, and its log line has the error and the request id', async () => {
    // A database error no route expects: a trigger refuses every new order (SQLSTATE P0001).
    const mp = (await daemon.services.marketplaces.create({ name: 'Broken MP' })).pk;
    const secret = 'internal detail wb_refuse_orders';
    const pool = new pg.Pool({ connectionString: daemon.database.url, max: 1 });
    try {
      await pool.query(
        `create function wb_refuse_orders() returns trigger language plpgsql as $$ begin raise exception '${secret}'; end $$`,
      );
      await pool.query('create trigger wb_refuse_orders before insert on orders for each row execute function wb_refuse_orders()');
      const order = {
        order_pk: 1,
        reference: 'R-500',
        customer: { name: 'C' },
        shipping_address: {},
        shipping_cost: 1,
        items: [{ item_pk: 1, sku: 'A1', quantity: 1, price: 10 }],
      };
      const res = await app.inject({
        method: 'POST',
        url: `/shops/${a.shopPk}/marketplace/${mp}/orders/`,
        headers: { ...a.auth, ...json },
        payload: order,
      });
      const body = problem(res, 500, 'internal_error');
      expect(Object.keys(body).sort()).toEqual(['code', 'detail', 'request_id', 'status', 'title', 'type']);
      expect(res.body).not.toMatch(/wb_refuse_orders|internal detail|P0001|stack|node_modules|\.ts:\d+|insert into|select |plpgsql/i);
      const line = daemon.logLines.find((l) => l.reqId === body.request_id && l.level === 'error');
      expect(line).toMatchObject({ msg: 'unhandled error', err: { message: secret, code: 'P0001' } });
      expect((line!.err as { stack?: string }).stack).toEqual(expect.any(String));
    } finally {
      await pool.query('drop trigger if exists wb_refuse_orders on orders; drop function if exists wb_refuse_orders()');
      await pool.end();
    }
  });
});

describe('rate limit and shutdown', () => {
  it('answers 429 with Retry-After past the per-key write limit', async () => {
    const limited = await startTestDaemon({ env: { WAYBILL_RATE_LIMIT: '2' } });
    try {
      const s = await limited.shopWithKey();
      const post = () =>
        limited.app!.inject({ method: 'POST', url: `/shops/${s.shopPk}/products/`, headers: { ...s.auth, ...json }, payload: product });
      expect((await post()).statusCode).toBe(201);
      expect((await post()).statusCode).toBe(201);
      const third = await post();
      problem(third, 429, 'rate_limited');
      expect(Number(third.headers['retry-after'])).toBeGreaterThan(0);
      // Reads are not limited.
      expect((await limited.app!.inject({ method: 'GET', url: `/shops/${s.shopPk}/products/`, headers: s.auth })).statusCode).toBe(200);
    } finally {
      await limited.stop();
      await limited.database.drop();
    }
  });

  it('finishes a request in flight on shutdown before stopping', async () => {
    const d = await startTestDaemon();
    const s = await d.shopWithKey();
    const body = JSON.stringify(product);
    const { port } = new URL(d.url!);
    const reply = new Promise<{ status: number; location: string | undefined }>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: `/shops/${s.shopPk}/products/`,
          headers: { ...s.auth, ...json, 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, location: res.headers.location }));
        },
      );
      req.on('error', reject);
      req.write(body.slice(0, 10)); // the request is in flight: half its body sent
      setTimeout(() => req.end(body.slice(10)), 500);
    });
    await new Promise((r) => setTimeout(r, 100));
    const stopped = d.stop();
    const r = await reply;
    await stopped;
    expect(r.status).toBe(201);
    expect(r.location).toMatch(/\/feeds\/[^/]+\/$/);
    await fetch(`${d.url}/healthz`).then(
      () => expect.unreachable('the server still answers after stop'),
      (error: Error) => expect(error.message).toMatch(/fetch failed/),
    );
    await d.database.drop();
  });
});
