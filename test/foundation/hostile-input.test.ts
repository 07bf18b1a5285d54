// Regressions found by the API fuzzer and the security suite (npm run test:faults -- fuzz /
// security): deeply nested JSON answered 500 (stack overflow after parsing), router errors
// (and Node's HTTP parser) answered non-problem JSON, and the OpenAPI document listed only the
// success statuses.
import { describe, expect, it } from 'vitest';
import { signedHeaders } from '../../src/webhooks/signature.ts';
import { useTestDaemon } from '../helpers/daemon.ts';
import { connectorsFile } from '../helpers/connectors-file.ts';

const SECRET = `whsec_${Buffer.from('hostile-input-secret-0123').toString('base64')}`;
process.env.WB_TEST_HOSTILE_SECRET = SECRET;
const daemon = await useTestDaemon({
  env: {
    WAYBILL_CONNECTORS: connectorsFile([
      { name: 'pim', type: 'catalog-webhook', shop_pk: 1, options: { secret_env: 'WB_TEST_HOSTILE_SECRET' } },
    ]),
  },
});
const app = daemon.app!;
const { shopPk, auth } = await daemon.shopWithKey();
const mp = await daemon.services.marketplaces.create({ name: 'Hostile MP' });
const headers = { ...auth, 'content-type': 'application/json' };
const nested = (depth: number): string => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

const isProblem = (res: { statusCode: number; headers: Record<string, unknown>; json(): unknown }, status: number, code: string): void => {
  expect(res.statusCode).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.json()).toMatchObject({ status, code });
};

describe('deeply nested JSON', () => {
  it('answers 400 too_deep, not 500, for 100,000 levels in a product, an order and a bare array', async () => {
    const bodies: [string, string][] = [
      [`/shops/${shopPk}/products/`, `{"sku":"D1","name":"Deep","price":1,"stock":1,"extra":${nested(100_000)}}`],
      [
        `/shops/${shopPk}/marketplace/${mp.pk}/orders/`,
        `{"order_pk":7,"items":[{"item_pk":1,"sku":"a","quantity":1,"price":1}],"customer":${nested(5_000)}}`,
      ],
      [`/shops/${shopPk}/products/`, `${'['.repeat(100_000)}${']'.repeat(100_000)}`],
    ];
    for (const [url, payload] of bodies) isProblem(await app.inject({ method: 'POST', url, headers, payload }), 400, 'too_deep');
    const alive = await app.inject({ url: '/healthz' });
    expect(alive.statusCode).toBe(200);
  });

  it('still takes nesting within the limit, and brackets inside strings do not count', async () => {
    // 60 levels in a field the order ignores: parsed and validated, not refused.
    const extra = JSON.parse(nested(60)) as object;
    const res = await app.inject({
      method: 'POST',
      url: `/shops/${shopPk}/marketplace/${mp.pk}/orders/`,
      headers,
      payload: {
        order_pk: 8,
        reference: '['.repeat(200),
        extra,
        customer: { first_name: '{'.repeat(200) },
        items: [{ item_pk: 1, sku: 'a', quantity: 1, price: 1 }],
      },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ order_pk: 8, reference: '['.repeat(200), customer: { first_name: '{'.repeat(200) } });
  });

  it('refuses a deep push to a connector receiver with 400 before the connector parses it', async () => {
    const payload = `[{"sku":"W","name":"W","price":1,"stock":1,"extra":${nested(100_000)}}]`;
    const res = await app.inject({
      method: 'POST',
      url: '/connectors/pim/webhook',
      payload,
      headers: { 'content-type': 'application/json', ...signedHeaders(SECRET, 'msg_deep', payload) },
    });
    isProblem(res, 400, 'too_deep');
  });
});

describe('router errors', () => {
  it('a path segment over 100 characters answers 404 problem JSON', async () => {
    isProblem(await app.inject({ url: `/shops/${shopPk}/products/${'9'.repeat(150)}/`, headers: auth }), 404, 'not_found');
  });

  it('a URL over 16 KB is refused by the HTTP parser with 431 problem JSON, and the server goes on', async () => {
    const res = await fetch(`${daemon.url!}/shops/${shopPk}/products/?sku=${'x'.repeat(100_000)}`, { headers: auth });
    expect(res.status).toBe(431);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(await res.json()).toMatchObject({ status: 431, code: 'headers_too_large' });
    expect((await fetch(`${daemon.url!}/healthz`)).status).toBe(200);
  });

  it('a malformed %-escape in a path parameter answers 400 problem JSON', async () => {
    isProblem(await app.inject({ url: `/feeds/%E0%A4%A/`, headers: auth }), 400, 'bad_url');
  });
});

describe('the OpenAPI document lists every status a route answers', () => {
  it('documents the error statuses as problem JSON, and the text replies of /metrics', async () => {
    const doc = (await app.inject({ url: '/openapi.json' })).json() as {
      paths: Record<
        string,
        Record<string, { responses: Record<string, { content?: Record<string, { schema: { required?: string[] } }> }> }>
      >;
    };
    const post = doc.paths['/shops/{shop}/products/']!.post!.responses;
    expect(Object.keys(post).sort()).toEqual(['201', '400', '401', '404', '406', '409', '413', '415', '422', '429', '500', '503']);
    expect(post['401']!.content!['application/problem+json']!.schema.required).toEqual([
      'type',
      'title',
      'status',
      'detail',
      'code',
      'request_id',
    ]);
    const ship = doc.paths['/shops/{shop}/marketplace/{mp}/orders/{order}/ship/']!.post!.responses;
    expect(Object.keys(ship)).toEqual(expect.arrayContaining(['204', '400', '404', '409', '429']));
    expect(Object.keys(doc.paths['/admin/api/shops']!.get!.responses).sort()).toEqual(['200', '401', '406', '429', '500', '503']);
    expect(Object.keys(doc.paths['/connectors/{name}/webhook']!.post!.responses)).toEqual(
      expect.arrayContaining(['202', '400', '401', '404', '413', '503']),
    );
    expect(doc.paths['/metrics']!.get!.responses['200']!.content).toHaveProperty(['text/plain']);
  });

  it('problem replies keep their extra members (the 409 of an action names the items)', async () => {
    await app.inject({
      method: 'POST',
      url: `/shops/${shopPk}/marketplace/${mp.pk}/orders/`,
      headers,
      payload: { order_pk: 9, items: [{ item_pk: 1, sku: 'a', quantity: 1, price: 1 }] },
    });
    await app.inject({ method: 'POST', url: `/shops/${shopPk}/marketplace/${mp.pk}/orders/9/cancel/`, headers, payload: {} });
    const res = await app.inject({ method: 'POST', url: `/shops/${shopPk}/marketplace/${mp.pk}/orders/9/ship/`, headers, payload: {} });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: 'invalid_transition', action: 'ship', items: [{ item_pk: 1, status: 'cancelled' }] });
  });
});
