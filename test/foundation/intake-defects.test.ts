// Small intake defects, each as a client meets it: a body that is not UTF-8 (was stored with
// U+FFFD, 201), an empty body sent with Content-Type: application/json where the body is
// optional (was 400), replies without X-Content-Type-Options, and a key sent as ?token=
// written to the log in the request URL.
import { describe, expect, it } from 'vitest';
import { signedHeaders } from '../../src/webhooks/signature.ts';
import { useTestDaemon } from '../helpers/daemon.ts';
import { until } from '../helpers/until.ts';
import { connectorsFile } from '../helpers/connectors-file.ts';
import { product, waitFeed } from '../catalog/catalog-helpers.ts';

const SECRET = `whsec_${Buffer.from('intake-defects-secret-01').toString('base64')}`;
process.env.WB_TEST_DEFECTS_SECRET = SECRET;
const ADMIN = 'intake-defects-admin-token-0123';
const daemon = await useTestDaemon({
  env: {
    WAYBILL_ADMIN_TOKEN: ADMIN,
    WAYBILL_CONNECTORS: connectorsFile([
      { name: 'pim', type: 'catalog-webhook', shop_pk: 1, options: { secret_env: 'WB_TEST_DEFECTS_SECRET' } },
    ]),
  },
});
const app = daemon.app!;
const { shopPk, key, auth } = await daemon.shopWithKey();
const mp = await daemon.services.marketplaces.create({ name: 'Defects MP' });
const json = { 'content-type': 'application/json' };
const PRODUCTS = `/shops/${shopPk}/products/`;
const ORDERS = `/shops/${shopPk}/marketplace/${mp.pk}/orders/`;

const problemOf = (res: { statusCode: number; headers: Record<string, unknown>; json(): unknown }, status: number, code: string): void => {
  expect(res.statusCode).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.json()).toMatchObject({ status, code });
};

describe('a body that is not UTF-8', () => {
  // "é" in Latin-1: one byte 0xE9, never valid UTF-8 before an ASCII quote.
  const latin1 = (text: string): Buffer => Buffer.from(text, 'latin1');

  it('answers 400 invalid_encoding on the API and on connector receivers, and stores nothing', async () => {
    problemOf(
      await app.inject({
        method: 'POST',
        url: PRODUCTS,
        headers: { ...auth, ...json },
        payload: latin1('{"sku":"CAF\xe9","name":"Caf\xe9","price":1,"stock":1}'),
      }),
      400,
      'invalid_encoding',
    );
    problemOf(
      await app.inject({
        method: 'POST',
        url: ORDERS,
        headers: { ...auth, ...json },
        payload: latin1('{"order_pk":1,"reference":"\xe9","items":[{"item_pk":1,"sku":"a","quantity":1,"price":1}]}'),
      }),
      400,
      'invalid_encoding',
    );
    const pushed = latin1('[{"sku":"PIM-\xe9","name":"n","price":1,"stock":1}]');
    problemOf(
      await app.inject({
        method: 'POST',
        url: '/connectors/pim/webhook',
        payload: pushed,
        headers: { ...json, ...signedHeaders(SECRET, 'msg_latin1', pushed.toString('latin1')) },
      }),
      400,
      'invalid_encoding',
    );
    for (const url of [PRODUCTS, ORDERS]) {
      const list = await app.inject({ url, headers: auth });
      expect([list.json(), list.headers['x-total-count']]).toEqual([[], '0']);
    }
  });

  it('UTF-8 itself, with or without a BOM-less multi-byte text, is taken as sent', async () => {
    const res = await app.inject({
      method: 'POST',
      url: PRODUCTS,
      headers: { ...auth, ...json },
      payload: Buffer.from('{"sku":"CAFÉ-☕","name":"Café 😀","price":1,"stock":1}', 'utf8'),
    });
    expect(res.statusCode).toBe(201);
    await waitFeed(app, auth, res.headers.location);
    const got = (await app.inject({ url: `${PRODUCTS}?sku=${encodeURIComponent('CAFÉ-☕')}`, headers: auth })).json() as { name: string }[];
    expect(got[0]!.name).toBe('Café 😀');
  });
});

describe('an empty body sent as application/json', () => {
  it("is no body where the body is optional: an order action, a single DELETE, a variation's image DELETE", async () => {
    const order = await app.inject({
      method: 'POST',
      url: ORDERS,
      headers: { ...auth, ...json },
      payload: { order_pk: 77, items: [{ item_pk: 1, sku: 'A', quantity: 1, price: 1 }] },
    });
    expect(order.statusCode).toBe(201);
    const ready = await app.inject({ method: 'POST', url: `${ORDERS}77/ready_to_ship/`, headers: { ...auth, ...json }, payload: '' });
    expect(ready.statusCode).toBe(204);
    expect((await app.inject({ url: `${ORDERS}77/`, headers: auth })).json()).toMatchObject({ status: 'ready_to_ship' });

    const feed = await waitFeed(
      app,
      auth,
      (
        await app.inject({
          method: 'POST',
          url: PRODUCTS,
          headers: auth,
          payload: [
            product('EMPTY-1', {
              images: ['https://img.example/e.jpg'],
              variations: [{ sku: 'EMPTY-1-V', images: ['https://img.example/e.jpg'] }],
            }),
          ],
        })
      ).headers.location,
    );
    const productPk = feed.result.success[0]!.product_pk as number;
    const variationPk = (feed.result.success[0]!.variation_pks as number[])[0]!;
    const detach = await app.inject({
      method: 'DELETE',
      url: `${PRODUCTS}${productPk}/variations/${variationPk}/images/`,
      headers: { ...auth, ...json },
      payload: '',
    });
    expect(detach.statusCode).toBe(201);
    expect(await waitFeed(app, auth, detach.headers.location)).toMatchObject({ state: 'done', counts: { succeeded: 1 } });
    const gone = await app.inject({ method: 'DELETE', url: `${PRODUCTS}${productPk}/`, headers: { ...auth, ...json }, payload: '' });
    expect(gone.statusCode).toBe(204);
  });

  it('is still a 400 where a body is required', async () => {
    problemOf(await app.inject({ method: 'POST', url: PRODUCTS, headers: { ...auth, ...json }, payload: '' }), 400, 'invalid_json');
    problemOf(await app.inject({ method: 'POST', url: ORDERS, headers: { ...auth, ...json }, payload: '' }), 400, 'invalid_json');
  });
});

describe('X-Content-Type-Options: nosniff', () => {
  it('on JSON replies, problem replies, the admin API and the OpenAPI document', async () => {
    const replies = [
      await app.inject({ url: `/shops/${shopPk}/feeds/`, headers: auth }),
      await app.inject({ url: `/shops/${shopPk}/feeds/` }),
      await app.inject({ method: 'POST', url: PRODUCTS, headers: { ...auth, ...json }, payload: '{' }),
      await app.inject({ url: '/admin/api/queues', headers: { authorization: `Bearer ${ADMIN}` } }),
      await app.inject({ url: '/admin/api/queues' }),
      await app.inject({ url: '/openapi.json' }),
    ];
    expect(replies.map((r) => r.statusCode)).toEqual([200, 401, 400, 200, 401, 200]);
    for (const r of replies) expect(r.headers['x-content-type-options']).toBe('nosniff');
  });
});

describe('a key sent in the query string', () => {
  it("never reaches a log line: a request's line has its path, without the query", async () => {
    const res = await fetch(`${daemon.url!}/shops/${shopPk}/feeds/?page_size=1&token=${key}`);
    expect(res.status).toBe(401);
    await fetch(`${daemon.url!}${PRODUCTS}?api_key=${key}&sku=x`, { headers: auth });
    await until('the request lines', () => daemon.logLines.some((l) => l.msg === 'request' && l.path === PRODUCTS));
    expect(JSON.stringify(daemon.logLines)).not.toContain(key);
    expect(daemon.logLines.filter((l) => l.msg === 'request').map((l) => l.path)).toEqual(
      expect.arrayContaining([`/shops/${shopPk}/feeds/`, PRODUCTS]),
    );
  });
});
