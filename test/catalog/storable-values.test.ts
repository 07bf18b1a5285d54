// Validation refuses every value the database cannot store exactly, with a 400 pointer, so a
// request is never accepted (201) and then lost in its feed: integers past their column (int4
// stock and quantity, bigint ids: safe integers only), non-finite numbers (`1e309` parses to
// Infinity), and timestamps outside years 0001-9999 or not real. What is accepted reads back
// exactly as sent.
import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.ts';
import { pageOf, product, waitFeed, type Feed } from './catalog-helpers.ts';

const daemon = await useTestDaemon();
const app = daemon.app!;
const { shopPk, auth } = await daemon.shopWithKey();
const mp = await daemon.services.marketplaces.create({ name: 'Storable MP' });
const headers = { ...auth, 'content-type': 'application/json' };
const PRODUCTS = `/shops/${shopPk}/products/`;
const ORDERS = `/shops/${shopPk}/marketplace/${mp.pk}/orders/`;

type Problem = { errors?: { pointer: string; code: string; message: string }[] };
/** Sends raw JSON text (1e309 cannot be written by JSON.stringify) and returns the 400's errors. */
const refused = async (method: 'POST' | 'PUT', url: string, payload: string): Promise<[string, string][]> => {
  const res = await app.inject({ method, url, headers, payload });
  expect(res.statusCode, res.body).toBe(400);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  return ((res.json() as Problem).errors ?? []).map((e) => [e.pointer, e.code]);
};
const good = (sku: string) => `{"sku":"${sku}","name":"n","price":1,"stock":1`;

describe('numbers a column cannot hold', () => {
  it('a feed mixing a good product and one with a stock past int4 is refused whole, pointing at the bad value: nothing is accepted to be lost', async () => {
    expect(
      await refused('POST', PRODUCTS, `[${good('MIX-GOOD')}},${good('MIX-BAD').replace('"stock":1', '"stock":2147483648')}}]`),
    ).toEqual([['/1/stock', 'too_large']]);
    expect(pageOf(await app.inject({ url: `${PRODUCTS}?sku=MIX-GOOD`, headers: auth })).total).toBe(0);
  });

  it('products: int4 stock and days, safe-integer ids, numbers kept exactly (finite, not rounded); each by pointer', async () => {
    const body =
      `[${good('P-0')},"stock":2147483648},${good('P-1')},"price":1e309},${good('P-2')},"weight":1e309,"shipping":-1e309},` +
      `${good('P-3')},"category_pk":9223372036854775808,"delivery_time":2147483648},` +
      `${good('P-4')},"discount":1e400,"variations":[{"sku":"V","stock":99999999999,"price":1e999}]}]`;
    expect(await refused('POST', PRODUCTS, body)).toEqual([
      ['/0/stock', 'too_large'],
      ['/1/price', 'inexact_number'],
      ['/2/weight', 'inexact_number'],
      ['/2/shipping', 'inexact_number'],
      ['/3/category_pk', 'inexact_number'],
      ['/3/delivery_time', 'too_large'],
      ['/4/discount', 'inexact_number'],
      ['/4/variations/0/price', 'inexact_number'],
      ['/4/variations/0/stock', 'too_large'],
    ]);
    expect(await refused('PUT', PRODUCTS, '[{"pk":9007199254740992,"stock":1},{"sku":"P","stock":2147483648}]')).toEqual([
      ['/0/pk', 'too_large'],
      ['/1/stock', 'too_large'],
    ]);
  });

  it('text holding U+0000 (no text column or jsonb stores it): in a value, a variation, an attribute name; each by pointer', async () => {
    const body = `[${good('N-0')},"name":"a\\u0000b"},${good('N-1')},"variations":[{"sku":"V\\u0000"}]},${good('N-2')},"col\\u0000r":"red"},${good('N-3')}}]`;
    expect(await refused('POST', PRODUCTS, body)).toEqual([
      ['/0/name', 'invalid_character'],
      ['/1/variations/0/sku', 'invalid_character'],
      ['/2/col\u0000r', 'invalid_character'],
    ]);
    expect(await refused('PUT', PRODUCTS, '[{"sku":"N-3","description":"x\\u0000"}]')).toEqual([['/0/description', 'invalid_character']]);
  });

  it('orders: a bigint order_pk and item_pk (safe integers), int4 quantity and days, finite prices', async () => {
    const item = '{"item_pk":1,"sku":"A","quantity":1,"price":1}';
    expect(
      await refused(
        'POST',
        ORDERS,
        `{"order_pk":9223372036854775808,"shipping_cost":1e309,"items":[${item},` +
          '{"item_pk":9007199254740993,"sku":"B","quantity":2147483648,"price":-1e309}]}',
      ),
    ).toEqual([
      ['/order_pk', 'inexact_number'],
      ['/shipping_cost', 'inexact_number'],
      ['/items/1/item_pk', 'inexact_number'],
      ['/items/1/price', 'inexact_number'],
      ['/items/1/quantity', 'too_large'],
    ]);
    expect(
      (await app.inject({ method: 'POST', url: ORDERS, headers, payload: `{"order_pk":9007199254740991,"items":[${item}]}` })).statusCode,
    ).toBe(201);
    expect(await refused('POST', `${ORDERS}9007199254740991/ship/`, '{"carrier":"DHL","delivery_time":2147483648}')).toEqual([
      ['/delivery_time', 'too_large'],
    ]);
    // A path id past 2^53 is refused by the same rule (it was a database error before).
    const path = await app.inject({ method: 'POST', url: `${ORDERS}9223372036854775808/ship/`, headers, payload: '{}' });
    expect(path.statusCode).toBe(400);
    expect(path.json()).toMatchObject({ code: 'validation_failed', errors: [{ pointer: '/params/order', code: 'too_large' }] });
  });

  it('numbers parsing would change, in attributes too (1e400, 30 digits, 2^53 + 1): refused by pointer, with the other errors', async () => {
    const body =
      `[${good('X-0')},"price":9007199254740993,"weight_kg":1e400},${good('X-1')},"serial":123456789012345678901234567890,` +
      `"specs":{"ohms":[1,0.10000000000000000001]},"variations":[{"sku":"V","gauge":-1e-400}]},${good('X-2')},"stock":-1}]`;
    const res = await app.inject({ method: 'POST', url: PRODUCTS, headers, payload: body });
    expect(res.statusCode).toBe(400);
    const errors = (res.json() as Problem).errors!;
    expect(errors.map((e) => [e.pointer, e.code])).toEqual([
      ['/0/price', 'inexact_number'],
      ['/0/weight_kg', 'inexact_number'],
      ['/1/serial', 'inexact_number'],
      ['/1/specs/ohms/1', 'inexact_number'],
      ['/1/variations/0/gauge', 'inexact_number'],
      ['/2/stock', 'too_small'],
    ]);
    expect(errors[0]!.message).toMatch(/^9007199254740993 cannot be kept exactly/);
    // The same request with the numbers as strings is stored as sent.
    const fixed = body
      .replace('9007199254740993', '1')
      .replaceAll(/(1e400|123456789012345678901234567890|0\.10000000000000000001|-1e-400)/g, '"$1"')
      .replace('"stock":-1', '"stock":1');
    const ok = await app.inject({ method: 'POST', url: PRODUCTS, headers, payload: fixed });
    expect(ok.statusCode, ok.body).toBe(201);
    expect(await waitFeed(app, auth, ok.headers.location, 10_000)).toMatchObject({ state: 'done', counts: { succeeded: 3 } });
    const got = pageOf(await app.inject({ url: `${PRODUCTS}?sku=X-1`, headers: auth })).items[0];
    expect(got).toMatchObject({ serial: '123456789012345678901234567890', specs: { ohms: [1, '0.10000000000000000001'] } });
  });

  it('orders: a number parsing would change inside free-form data (customer) is refused too', async () => {
    expect(
      await refused(
        'POST',
        ORDERS,
        '{"order_pk":77,"customer":{"loyalty_id":123456789012345678901234567890},"items":[{"item_pk":1,"sku":"A","quantity":1,"price":1}]}',
      ),
    ).toEqual([['/customer/loyalty_id', 'inexact_number']]);
  });

  it('what is accepted is stored exactly: the largest values each column holds read back as sent', async () => {
    const values = {
      price: 1.7976931348623157e308,
      stock: 2_147_483_647,
      weight: 5e-324,
      discount: 0.1 + 0.2,
      category_pk: Number.MAX_SAFE_INTEGER,
      delivery_time: 2_147_483_647,
    };
    const res = await app.inject({ method: 'POST', url: PRODUCTS, headers, payload: [product('EXACT', values)] });
    expect(res.statusCode).toBe(201);
    const feed: Feed = await waitFeed(app, auth, res.headers.location, 10_000);
    expect(feed).toMatchObject({ state: 'done', counts: { succeeded: 1, failed: 0 } });
    const got = pageOf(await app.inject({ url: `${PRODUCTS}?sku=EXACT`, headers: auth })).items[0];
    expect(got).toMatchObject(values);
  });
});

describe('timestamps: one rule for bodies and query strings', () => {
  it('bodies: years 0001-9999 (in UTC too), real dates and times, a zone allowed', async () => {
    const at = (v: string) => `${good('T')},"discount_from":"${v}"}`;
    for (const bad of [
      '0000-01-01T00:00:00',
      '2026-02-29T00:00:00',
      '2026-04-31T00:00:00',
      '2026-01-01T24:00:00',
      '2026-01-01T00:60:00',
      '99999-01-01T00:00:00',
      '2026-01-01T00:00:00+24:00',
      '0001-01-01T00:00:00+01:00',
      '9999-12-31T23:00:00-02:00',
    ]) {
      expect(await refused('POST', PRODUCTS, at(bad))).toEqual([['/discount_from', 'invalid_timestamp']]);
    }
    for (const fine of [
      '0001-01-01T00:00:00',
      '2024-02-29T23:59:59',
      '9999-12-31T23:59:59',
      '2026-01-01T00:00:00Z',
      '2026-01-01T00:00:00.250+05:30',
    ]) {
      expect((await app.inject({ method: 'POST', url: PRODUCTS, headers, payload: at(fine) })).statusCode).toBe(201);
    }
  });

  it('?updated_since=: the same rule, a zone allowed', async () => {
    for (const bad of [
      '2026-02-30T00:00:00',
      '0000-01-01T00:00:00',
      '2026-13-01T00:00:00',
      'yesterday',
      '2026-01-01',
      '2026-01-01T00:00:00+25:00',
    ]) {
      const res = await app.inject({ url: `${PRODUCTS}?updated_since=${encodeURIComponent(bad)}`, headers: auth });
      expect(res.statusCode, bad).toBe(400);
      expect(res.json()).toMatchObject({
        code: 'validation_failed',
        errors: [{ pointer: '/querystring/updated_since', code: 'invalid_timestamp' }],
      });
    }
    for (const fine of ['2026-02-28T00:00:00', '2000-01-01T00:00:00Z', '2000-01-01T00:00:00.5+02:00']) {
      expect((await app.inject({ url: `${PRODUCTS}?updated_since=${encodeURIComponent(fine)}`, headers: auth })).statusCode, fine).toBe(
        200,
      );
    }
  });
});
