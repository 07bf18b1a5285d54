// What one request may cost: items per catalog write (WAYBILL_MAX_ITEMS, 413 before any item
// is validated), arrays inside an item or an order over their bound (400 naming the array,
// without checking its elements), and at most 1,000 field errors listed in any 400
// (`errors_truncated`, `errors_total`). A body of a million elements once took the daemon
// out of memory; here it is answered at once with a reply of a few hundred bytes.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { signedHeaders } from '../../src/webhooks/signature.ts';
import { useTestDaemon } from '../helpers/daemon.ts';
import { connectorsFile } from '../helpers/connectors-file.ts';
import { waitFeed } from '../catalog/catalog-helpers.ts';

const SECRET = `whsec_${Buffer.from('request-limits-secret-01').toString('base64')}`;
process.env.WB_TEST_LIMITS_SECRET = SECRET;
const MAX = 50;
const daemon = await useTestDaemon({
  env: {
    WAYBILL_MAX_ITEMS: String(MAX),
    WAYBILL_CONNECTORS: connectorsFile([
      { name: 'pim', type: 'catalog-webhook', shop_pk: 1, options: { secret_env: 'WB_TEST_LIMITS_SECRET' } },
    ]),
  },
});
const app = daemon.app!;
const { shopPk, auth } = await daemon.shopWithKey();
const mp = await daemon.services.marketplaces.create({ name: 'Limits MP' });
const headers = { ...auth, 'content-type': 'application/json' };
const PRODUCTS = `/shops/${shopPk}/products/`;
const ORDERS = `/shops/${shopPk}/marketplace/${mp.pk}/orders/`;
const ones = (n: number): string => `[${new Array(n).fill('1').join(',')}]`;
const product = (i: number) => ({ sku: `L-${i}`, name: `Limit ${i}`, price: 1, stock: 1 });

type Problem = {
  status: number;
  code: string;
  detail: string;
  errors?: { pointer: string; code: string; message: string }[];
  errors_truncated?: boolean;
  errors_total?: number;
  max_items?: number;
};
const problem = (res: { statusCode: number; headers: Record<string, unknown>; json(): unknown }, status: number, code: string): Problem => {
  expect(res.statusCode).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = res.json() as Problem;
  expect(body).toMatchObject({ status, code });
  return body;
};
const feedCount = async (): Promise<number> =>
  Number((await app.inject({ url: `/shops/${shopPk}/feeds/`, headers: auth })).headers['x-total-count']);

describe('items per catalog write', () => {
  it('is 10,000 by default and set by WAYBILL_MAX_ITEMS (a whole number of at least 1)', () => {
    expect(loadConfig({}).maxItemsPerRequest).toBe(10_000);
    expect(loadConfig({ WAYBILL_MAX_ITEMS: '500' }).maxItemsPerRequest).toBe(500);
    expect(() => loadConfig({ WAYBILL_MAX_ITEMS: '0' })).toThrow(/WAYBILL_MAX_ITEMS/);
  });

  it('one more item than the limit answers 413 naming the limit, on every catalog write, and records nothing', async () => {
    const before = await feedCount();
    const tooMany = Array.from({ length: MAX + 1 }, (_, i) => product(i));
    for (const [method, url] of [
      ['POST', PRODUCTS],
      ['PUT', PRODUCTS],
      ['DELETE', PRODUCTS],
    ] as const) {
      const body = problem(await app.inject({ method, url, headers, payload: tooMany }), 413, 'too_many_items');
      expect(body.max_items).toBe(MAX);
      expect(body.detail).toBe(`The request has ${MAX + 1} items; one request takes at most ${MAX} (WAYBILL_MAX_ITEMS). Split it.`);
    }
    // Exactly the limit is taken.
    expect((await app.inject({ method: 'POST', url: PRODUCTS, headers, payload: tooMany.slice(0, MAX) })).statusCode).toBe(201);
    expect(await feedCount()).toBe(before + 1);
  });

  it('a million elements answer 413 at once, with a reply of a few hundred bytes', async () => {
    const res = await app.inject({ method: 'POST', url: PRODUCTS, headers, payload: ones(1_000_000) });
    problem(res, 413, 'too_many_items');
    expect(res.body.length).toBeLessThan(1_000);
    expect((await app.inject({ url: '/healthz' })).statusCode).toBe(200);
  });

  it('a push to the catalog webhook is held to the same limit', async () => {
    const payload = JSON.stringify(Array.from({ length: MAX + 1 }, (_, i) => product(i)));
    const res = await app.inject({
      method: 'POST',
      url: '/connectors/pim/webhook',
      payload,
      headers: { 'content-type': 'application/json', ...signedHeaders(SECRET, 'msg_limits_1', payload) },
    });
    problem(res, 413, 'too_many_items');
  });
});

describe('arrays inside a body', () => {
  it('images over 100 in a product: one 400 error naming the array, its elements never checked', async () => {
    const payload = `{"sku":"IMG","name":"Images","price":1,"stock":1,"images":${ones(3_000_000)}}`;
    const res = await app.inject({ method: 'POST', url: PRODUCTS, headers, payload });
    const body = problem(res, 400, 'validation_failed');
    expect(body.errors).toEqual([{ pointer: '/images', code: 'too_many', message: 'must NOT have more than 100 items (has 3000000)' }]);
    expect(res.body.length).toBeLessThan(1_000);
  });

  it('order items over 1,000 (intake and actions): one 400 error naming the array', async () => {
    const intake = problem(
      await app.inject({ method: 'POST', url: ORDERS, headers, payload: `{"order_pk":1,"items":${ones(1_000_000)}}` }),
      400,
      'validation_failed',
    );
    expect(intake.errors).toEqual([{ pointer: '/items', code: 'too_many', message: 'must NOT have more than 1000 items (has 1000000)' }]);
    const order = await app.inject({
      method: 'POST',
      url: ORDERS,
      headers,
      payload: { order_pk: 2, items: [{ item_pk: 1, sku: 'A', quantity: 1, price: 1 }] },
    });
    expect(order.statusCode).toBe(201);
    const action = problem(
      await app.inject({ method: 'POST', url: `${ORDERS}2/ship/`, headers, payload: `{"items":${ones(1_001)}}` }),
      400,
      'validation_failed',
    );
    expect(action.errors).toEqual([{ pointer: '/items', code: 'too_many', message: 'must NOT have more than 1000 items (has 1001)' }]);
  });
});

describe('the JSON text, before it is parsed', () => {
  it('more than 4,000,000 values, or an object of more than 10,000 members: 413 on the API and on receivers', async () => {
    const values = `[{"sku":"V","name":"v","price":1,"stock":1,"extra":[${new Array(4_000_000).fill('{}').join(',')}]}]`;
    const members = (n: number) =>
      `{"sku":"M","name":"m","price":1,"stock":1${Array.from({ length: n - 4 }, (_, i) => `,"u${i}":1`).join('')}}`;
    const tooMany = problem(await app.inject({ method: 'POST', url: PRODUCTS, headers, payload: values }), 413, 'too_many_values');
    expect(tooMany).toMatchObject({ max_values: 4_000_000 });
    problem(
      await app.inject({ method: 'POST', url: ORDERS, headers, payload: `{"order_pk":9,"customer":${members(10_001)},"items":[]}` }),
      413,
      'too_many_members',
    );
    const pushed = members(10_001);
    problem(
      await app.inject({
        method: 'POST',
        url: '/connectors/pim/webhook',
        payload: pushed,
        headers: { 'content-type': 'application/json', ...signedHeaders(SECRET, 'msg_limits_2', pushed) },
      }),
      413,
      'too_many_members',
    );
    // 10,000 members are parsed; as category attributes they are more than a product may carry: one error.
    const attrs = problem(await app.inject({ method: 'POST', url: PRODUCTS, headers, payload: members(10_000) }), 400, 'validation_failed');
    expect(attrs.errors).toEqual([{ pointer: '', code: 'too_many_attributes', message: 'has 9996 category attributes; at most 500' }]);
    // Unknown members where attributes are not kept (an image object) are warnings: the first 100 and a count.
    const image = `{"url":"https://cdn.example/m.jpg"${Array.from({ length: 9_000 }, (_, i) => `,"u${i}":1`).join('')}}`;
    const res = await app.inject({
      method: 'POST',
      url: PRODUCTS,
      headers,
      payload: `[{"sku":"M","name":"m","price":1,"stock":1,"images":[${image}]}]`,
    });
    expect(res.statusCode).toBe(201);
    const feed = await waitFeed(app, auth, res.headers.location, 15_000);
    const warnings = feed.result.success[0]!.warnings as { pointer: string; code: string; message: string }[];
    expect(warnings).toHaveLength(101);
    expect(warnings[0]).toEqual({ pointer: '/0/images/0/u0', code: 'unknown_field', message: 'unknown field, ignored' });
    expect(warnings[100]).toEqual({ pointer: '/0', code: 'unknown_field', message: '8900 more unknown fields, ignored' });
    expect(feed.result.success[0]!.warning).toContain('/0/images/0/u0: unknown field, ignored');
  });
});

describe('errors listed in a 400', () => {
  it('a catalog write: the first 1,000, errors_truncated and the exact errors_total', async () => {
    // 20 items, each missing sku, name, price and stock and with 100 images that are not addresses: 104 errors each.
    const items = Array.from({ length: 20 }, () => ({ images: new Array(100).fill(1) }));
    const res = await app.inject({ method: 'POST', url: PRODUCTS, headers, payload: items });
    const body = problem(res, 400, 'validation_failed');
    expect(body.errors).toHaveLength(1_000);
    expect(body).toMatchObject({ errors_truncated: true, errors_total: 2_080, detail: 'The request body has 2080 invalid fields.' });
    expect(body.errors![0]).toEqual({ pointer: '/0/sku', code: 'required', message: 'is required' });
  });

  it('an order (route validation): the same rule', async () => {
    const items = Array.from({ length: 1_000 }, () => ({ item_pk: 'x', sku: 5, quantity: 'y', price: 'z' }));
    const body = problem(
      await app.inject({ method: 'POST', url: ORDERS, headers, payload: { order_pk: 3, items } }),
      400,
      'validation_failed',
    );
    expect(body.errors).toHaveLength(1_000);
    expect(body).toMatchObject({ errors_truncated: true, errors_total: 4_000 });
  });

  it('up to 1,000 errors are listed whole, without the truncation members', async () => {
    const items = Array.from({ length: 10 }, () => ({ sku: '' }));
    const body = problem(await app.inject({ method: 'POST', url: PRODUCTS, headers, payload: items }), 400, 'validation_failed');
    expect(body.errors).toHaveLength(40);
    expect(body.errors_truncated).toBeUndefined();
    expect(body.errors_total).toBeUndefined();
  });
});
