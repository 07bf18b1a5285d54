import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { validateItems } from '../../src/catalog/product-validation.ts';
import { useTestDaemon } from '../helpers/daemon.ts';
import { expectProblem, pageOf, pathOf, product, waitFeed, write, type Feed } from './catalog-helpers.ts';

const daemon = await useTestDaemon();
const app = daemon.app!;
const { shopPk, auth, key } = await daemon.shopWithKey({ name: 'Products shop' });
const other = await daemon.shopWithKey({ name: 'Other shop' });
const PRODUCTS = `/shops/${shopPk}/products/`;
const ALLOW = 'GET, POST, PUT, DELETE, OPTIONS';
const sql = new pg.Pool({ connectionString: daemon.database.url, max: 2 });
afterAll(() => sql.end());

const count = async (table: string, where = 'true'): Promise<number> =>
  Number((await sql.query(`select count(*)::int as n from ${table} where ${where}`)).rows[0].n);

describe('POST /shops/{shop}/products/', () => {
  it('answers 201 with Location, Content-Type, Allow and the feed; the feed goes to done', async () => {
    const res = await app.inject({ method: 'POST', url: PRODUCTS, headers: auth, payload: [product('P-1'), product('P-2')] });
    expect(res.statusCode).toBe(201);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers.allow).toBe(ALLOW);
    expect(res.headers.location).toMatch(/^http:\/\/localhost(:80)?\/feeds\/[0-9a-f-]{36}\/$/);
    const feed = res.json() as Feed;
    expect(feed).toMatchObject({
      url: res.headers.location,
      shop_pk: shopPk,
      type: 'product_create',
      state: 'queued',
      status: 'Wait',
      source: `key:${key.slice(0, 11)}`,
    });
    expect(feed.counts).toEqual({ total: 2, processed: 0, succeeded: 0, failed: 0, warnings: 0 });
    const done = await waitFeed(app, auth, res.headers.location);
    expect(done).toMatchObject({
      pk: feed.pk,
      state: 'done',
      status: 'Complete',
      counts: { total: 2, processed: 2, succeeded: 2, failed: 0, warnings: 0 },
    });
    expect(done.finished_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
    expect(done.result.success.map((s) => s.sku)).toEqual(['P-1', 'P-2']);
    expect(done.result.success[0]).toMatchObject({ index: 0, product_pk: expect.any(Number), variation_pks: [], images: [], warning: [] });
  });

  it('takes one object as well as an array, and uses PUBLIC_URL-less Host for Location', async () => {
    const res = await app.inject({
      method: 'POST',
      url: PRODUCTS,
      headers: { ...auth, host: 'shop.example:9000' },
      payload: product('SINGLE'),
    });
    expect(res.statusCode).toBe(201);
    expect(res.headers.location).toMatch(/^http:\/\/shop\.example:9000\/feeds\//);
    expect((await waitFeed(app, auth, res.headers.location)).result.success).toHaveLength(1);
  });

  it('stores both image forms, and variations referring to product images', async () => {
    const feed = await write(app, auth, 'POST', PRODUCTS, [
      product('IMG-1', {
        images: ['https://cdn.example/1.jpg', { url: 'https://cdn.example/2.jpg' }],
        variations: [
          { sku: 'IMG-1-red', color: 'red', images: [{ url: 'https://cdn.example/2.jpg' }] },
          { sku: 'IMG-1-blue', price: 12, stock: 0, images: ['https://cdn.example/3.jpg'] },
        ],
      }),
    ]);
    const s = feed.result.success[0]!;
    expect(s.images).toEqual([
      { image_pk: expect.any(Number), url: 'https://cdn.example/1.jpg', url_source: 'https://cdn.example/1.jpg', position: 0 },
      { image_pk: expect.any(Number), url: 'https://cdn.example/2.jpg', url_source: 'https://cdn.example/2.jpg', position: 1 },
      { image_pk: expect.any(Number), url: 'https://cdn.example/3.jpg', url_source: 'https://cdn.example/3.jpg', position: 2 },
    ]);
    const got = (await app.inject({ url: `${PRODUCTS}${String(s.product_pk)}/`, headers: auth })).json() as Record<string, unknown> & {
      variations: Record<string, unknown>[];
    };
    expect(got).toMatchObject({ sku: 'IMG-1', price: 10.5, stock: 3 });
    expect(got.variations).toMatchObject([
      { sku: 'IMG-1-red', color: 'red', price: 10.5, stock: 3, images: [{ url: 'https://cdn.example/2.jpg', position: 0 }] },
      { sku: 'IMG-1-blue', price: 12, stock: 0, images: [{ url: 'https://cdn.example/3.jpg', position: 0 }] },
    ]);
  });

  it('creates or updates by sku: re-sending never duplicates and changes nothing', async () => {
    const body = [product('UP-1', { images: ['https://cdn.example/u.jpg'], variations: [{ sku: 'UP-1-a' }] }), product('UP-2')];
    const first = await write(app, auth, 'POST', PRODUCTS, body);
    const before = (await sql.query(`select pk, updated_at from products where sku like 'UP-%' order by pk`)).rows;
    const again = await write(app, auth, 'POST', PRODUCTS, body);
    expect(again.result.success.map((x) => [x.product_pk, x.variation_pks, x.images])).toEqual(
      first.result.success.map((x) => [x.product_pk, x.variation_pks, x.images]),
    );
    expect((await sql.query(`select pk, updated_at from products where sku like 'UP-%' order by pk`)).rows).toEqual(before);
    expect(await count('products', `sku like 'UP-%'`)).toBe(2);
    expect(await count('variations', `sku = 'UP-1-a'`)).toBe(1);
    expect(await count('product_images', `url = 'https://cdn.example/u.jpg'`)).toBe(1);
    // A changed price is an update of the same row.
    const changed = await write(app, auth, 'POST', PRODUCTS, [product('UP-2', { price: 99 })]);
    expect(changed.result.success[0]!.product_pk).toBe(first.result.success[1]!.product_pk);
    expect((await sql.query(`select price from products where sku = 'UP-2'`)).rows[0].price).toBe(99);
  });

  it('keeps fields outside the field catalog as category attributes, without a warning', async () => {
    const feed = await write(app, auth, 'POST', PRODUCTS, [
      product('W-1', { template_html: '<b>x</b>', variations: [{ sku: 'W-1-a', shipping_price: 3 }] }),
    ]);
    expect(feed.counts.warnings).toBe(0);
    expect(feed.result.success[0]).toMatchObject({ warning: [], warnings: [] });
    expect((await sql.query(`select attrs from products where sku = 'W-1'`)).rows[0].attrs).toEqual({ template_html: '<b>x</b>' });
    expect((await sql.query(`select attrs from variations where sku = 'W-1-a'`)).rows[0].attrs).toEqual({ shipping_price: 3 });
  });

  it('a field named __proto__: refused by the API (400), and an unknown field for connectors (never a prototype)', async () => {
    const body =
      '[{"sku":"PROTO-1","name":"P","price":1,"stock":1,"__proto__":{"brand":"Polluted"},"variations":[{"sku":"PROTO-1-a","__proto__":{"size":"XL"}}]}]';
    const res = await app.inject({
      method: 'POST',
      url: PRODUCTS,
      headers: { ...auth, 'content-type': 'application/json' },
      payload: body,
    });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    // A connector's parsed file reaches the same validation without the HTTP parser's guard.
    const v = validateItems('product', JSON.parse(body) as unknown[]);
    expect(v.errors).toEqual([]);
    expect(v.warnings.map((w) => w.pointer)).toEqual(['/0/__proto__', '/0/variations/0/__proto__']);
    const item = v.valid[0]!.item as Record<string, unknown> & { variations: Record<string, unknown>[] };
    expect(Object.getPrototypeOf(item)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(item.variations[0])).toBe(Object.prototype);
    expect(item.brand).toBeUndefined();
    expect(Object.keys(item)).toEqual(['sku', 'name', 'price', 'stock', 'variations']);
    // Validated in place (catalog-file: the file's own products, not copied): the same outcome.
    const own = JSON.parse(body) as Record<string, unknown>[];
    const inPlace = validateItems('product', own, false, { inPlace: true });
    expect(inPlace).toEqual(v);
    expect(inPlace.valid[0]!.item).toBe(own[0]);
    expect(Object.getPrototypeOf(own[0])).toBe(Object.prototype);
    expect(Object.keys(own[0]!)).toEqual(['sku', 'name', 'price', 'stock', 'variations']);
  });
});

describe('400: every invalid field by JSON pointer', () => {
  it('missing required fields, wrong types, bad enums, bad timestamps, bad images, all at once', async () => {
    const res = await app.inject({
      method: 'POST',
      url: PRODUCTS,
      headers: auth,
      payload: [
        product('OK-1'),
        { sku: 'B-1', price: '10', stock: 1.5 },
        product('B-2', { availability: 'soon', gender: 'x', discount_from: '2026-02-30T10:00:00', discount_to: '2026-03-01 10:00:00' }),
        product('B-3', { images: [{ href: 'https://x/1.jpg' }, 'ftp://x/2.jpg', 42], variations: [{ price: -1 }] }),
        product('B-4', { discount_from: '2026-03-02T00:00:00', discount_to: '2026-03-01T00:00:00' }),
      ],
    });
    const body = expectProblem(res, 400, 'validation_failed');
    expect(body.errors!.map((e) => [e.pointer, e.code])).toEqual([
      ['/1/name', 'required'],
      ['/1/price', 'invalid_type'],
      ['/1/stock', 'invalid_type'],
      ['/2/availability', 'invalid_value'],
      ['/2/gender', 'invalid_value'],
      ['/2/discount_from', 'invalid_timestamp'],
      ['/2/discount_to', 'invalid_timestamp'],
      ['/3/images/0', 'invalid_image'],
      ['/3/images/1', 'invalid_image'],
      ['/3/images/2', 'invalid_image'],
      ['/3/variations/0/sku', 'required'],
      ['/3/variations/0/price', 'too_small'],
      ['/4/discount_to', 'invalid_range'],
    ]);
    expect(await count('products', `sku in ('OK-1', 'B-1')`)).toBe(0);
    expect(await count('feeds', `shop_pk = ${shopPk} and total = 5`)).toBe(0);
  });

  it('a single object points at its own fields; an empty array or a scalar is refused', async () => {
    expect(
      expectProblem(
        await app.inject({ method: 'POST', url: PRODUCTS, headers: auth, payload: { sku: 'S', name: 'S', price: 1 } }),
        400,
        'validation_failed',
      ).errors,
    ).toEqual([{ pointer: '/stock', code: 'required', message: 'is required' }]);
    expect(
      expectProblem(await app.inject({ method: 'POST', url: PRODUCTS, headers: auth, payload: [] }), 400, 'validation_failed').errors,
    ).toEqual([{ pointer: '', code: 'too_few', message: 'must contain at least one item' }]);
    expectProblem(
      await app.inject({ method: 'POST', url: PRODUCTS, headers: { ...auth, 'content-type': 'application/json' }, payload: '42' }),
      400,
      'validation_failed',
    );
    expectProblem(
      await app.inject({ method: 'POST', url: PRODUCTS, headers: { ...auth, 'content-type': 'application/json' }, payload: '[{' }),
      400,
      'invalid_json',
    );
  });

  it('bounds: sku length, negative stock, category_pk, tax text', async () => {
    const res = await app.inject({
      method: 'POST',
      url: PRODUCTS,
      headers: auth,
      payload: [product('x'.repeat(101), { stock: -1, price: -0.01, discount: 100, category_pk: 'c', tax: 'abc', weight_unit: 'ton' })],
    });
    expect(expectProblem(res, 400, 'validation_failed').errors!.map((e) => e.pointer)).toEqual([
      '/0/sku',
      '/0/category_pk',
      '/0/price',
      '/0/stock',
      '/0/tax',
      '/0/discount',
      '/0/weight_unit',
    ]);
  });
});

describe('404 and auth', () => {
  it("an unknown shop, another shop's path, a missing key", async () => {
    expectProblem(
      await app.inject({ method: 'POST', url: '/shops/999999/products/', headers: auth, payload: [product('X')] }),
      404,
      'not_found',
    );
    expectProblem(await app.inject({ method: 'POST', url: PRODUCTS, headers: other.auth, payload: [product('X')] }), 404, 'not_found');
    expectProblem(await app.inject({ url: `/shops/${shopPk}/products/1/`, headers: other.auth }), 404, 'not_found');
    const noKey = await app.inject({ method: 'POST', url: PRODUCTS, payload: [product('X')] });
    expectProblem(noKey, 401, 'unauthorized');
    expect(noKey.headers['www-authenticate']).toBe('Token');
    expectProblem(await app.inject({ url: `${PRODUCTS}987654/`, headers: auth }), 404, 'not_found');
  });

  it("another shop's feed is 404", async () => {
    const res = await app.inject({ method: 'POST', url: PRODUCTS, headers: auth, payload: [product('FEED-OWN')] });
    expectProblem(await app.inject({ url: pathOf(res.headers.location), headers: other.auth }), 404, 'not_found');
    expectProblem(await app.inject({ url: '/feeds/not-a-feed/', headers: auth }), 404, 'not_found');
  });
});

describe('PUT and DELETE /shops/{shop}/products/', () => {
  it('partially updates by pk or sku; unknown ones are reported per item', async () => {
    const created = await write(app, auth, 'POST', PRODUCTS, [product('PU-1', { brand: 'Acme', color: 'red' }), product('PU-2')]);
    const pk1 = created.result.success[0]!.product_pk as number;
    const feed = await write(app, auth, 'PUT', PRODUCTS, [
      { pk: pk1, stock: 7, color: 'blue' },
      { sku: 'PU-2', price: 1.25 },
      { sku: 'NOPE' },
      { pk: 999999 },
    ]);
    expect(feed.counts).toMatchObject({ total: 4, succeeded: 2, failed: 2 });
    expect(feed.result.errors).toEqual([
      { index: 2, sku: 'NOPE', pointer: '/2/sku', code: 'not_found', message: expect.any(String) },
      { index: 3, product_pk: 999999, pointer: '/3/pk', code: 'not_found', message: expect.any(String) },
    ]);
    const got = (await app.inject({ url: `${PRODUCTS}${pk1}/`, headers: auth })).json() as Record<string, unknown>;
    expect(got).toMatchObject({ sku: 'PU-1', name: 'Product PU-1', stock: 7, brand: 'Acme', color: 'blue', price: 10.5 });
    expect(
      expectProblem(await app.inject({ method: 'PUT', url: PRODUCTS, headers: auth, payload: [{ stock: 1 }] }), 400, 'validation_failed')
        .errors,
    ).toEqual([{ pointer: '/0/pk', code: 'required', message: 'pk or sku is required' }]);
  });

  it('soft-deletes by pk or sku (a repeat succeeds; an unknown one is reported); GET no longer shows them', async () => {
    const created = await write(app, auth, 'POST', PRODUCTS, [product('D-1'), product('D-2')]);
    const feed = await write(app, auth, 'DELETE', PRODUCTS, [
      { pk: created.result.success[0]!.product_pk },
      { sku: 'D-2' },
      { sku: 'D-404' },
    ]);
    expect(feed).toMatchObject({ type: 'product_delete', counts: { succeeded: 2, failed: 1 } });
    expect((await write(app, auth, 'DELETE', PRODUCTS, { sku: 'D-2' })).counts.succeeded).toBe(1);
    expect(await count('products', `sku in ('D-1', 'D-2') and deleted_at is not null`)).toBe(2);
    expect(pageOf(await app.inject({ url: `${PRODUCTS}?sku=D-1`, headers: auth }))).toMatchObject({ total: 0, items: [] });
    // Re-created by POST: the same row comes back.
    const back = await write(app, auth, 'POST', PRODUCTS, [product('D-1')]);
    expect(back.result.success[0]!.product_pk).toBe(created.result.success[0]!.product_pk);
  });
});

describe('GET /shops/{shop}/products/ and one product', () => {
  it('pages by Link and X-Total-Count, filters by sku and updated_since', async () => {
    await write(
      app,
      auth,
      'POST',
      PRODUCTS,
      Array.from({ length: 5 }, (_, i) => product(`L-${i}`)),
    );
    const page1 = pageOf(await app.inject({ url: `${PRODUCTS}?page_size=2`, headers: { ...auth, host: 'api.test' } }));
    expect(page1.items).toHaveLength(2);
    expect(page1.links.prev).toBeUndefined();
    expect(page1.links.next).toBe(`http://api.test${PRODUCTS}?page_size=2&page=2`);
    const total = page1.total;
    const lastPage = Math.ceil(total / 2);
    expect(page1.links.last).toBe(`http://api.test${PRODUCTS}?page_size=2&page=${lastPage}`);
    const last = pageOf(await app.inject({ url: `${PRODUCTS}?page_size=2&page=${lastPage}`, headers: auth }));
    expect(last.links.next).toBeUndefined();
    expect(last.links.prev).toContain(`page=${lastPage - 1}`);
    expect(pageOf(await app.inject({ url: `${PRODUCTS}?sku=L-3`, headers: auth }))).toMatchObject({ total: 1, items: [{ sku: 'L-3' }] });
    expect(pageOf(await app.inject({ url: `${PRODUCTS}?updated_since=2099-01-01T00:00:00`, headers: auth }))).toMatchObject({
      total: 0,
      items: [],
    });
    expect(pageOf(await app.inject({ url: `${PRODUCTS}?updated_since=2000-01-01T00:00:00`, headers: auth })).total).toBe(total);
    expectProblem(await app.inject({ url: `${PRODUCTS}?updated_since=yesterday`, headers: auth }), 400, 'validation_failed');
    expectProblem(await app.inject({ url: `${PRODUCTS}?page_size=1001`, headers: auth }), 400, 'validation_failed');
  });

  it('DELETE /products/{pk}/ answers 204, then 404', async () => {
    const pk = (await write(app, auth, 'POST', PRODUCTS, [product('ONE-1')])).result.success[0]!.product_pk;
    const url = `${PRODUCTS}${String(pk)}/`;
    const get = await app.inject({ url, headers: auth });
    expect(get.statusCode).toBe(200);
    expect(get.headers.allow).toBe('GET, DELETE, OPTIONS');
    const del = await app.inject({ method: 'DELETE', url, headers: auth });
    expect(del.statusCode).toBe(204);
    expect(del.headers.allow).toBe('GET, DELETE, OPTIONS');
    expectProblem(await app.inject({ method: 'DELETE', url, headers: auth }), 404, 'not_found');
    expectProblem(await app.inject({ url, headers: auth }), 404, 'not_found');
  });
});

describe('Allow, OPTIONS and 405', () => {
  it.each([
    [PRODUCTS, ALLOW, 'PATCH'],
    [`${PRODUCTS}1/`, 'GET, DELETE, OPTIONS', 'POST'],
    [`/shops/${shopPk}/feeds/`, 'GET, OPTIONS', 'POST'],
    ['/feeds/00000000-0000-0000-0000-000000000000/', 'GET, OPTIONS', 'DELETE'],
  ])('%s', async (url, allow, other) => {
    const options = await app.inject({ method: 'OPTIONS', url, headers: auth });
    expect(options.statusCode).toBe(204);
    expect(options.headers.allow).toBe(allow);
    const res = await app.inject({ method: other as 'POST', url, headers: auth });
    expectProblem(res, 405, 'method_not_allowed');
    expect(res.headers.allow).toBe(allow);
  });

  it('error replies of a route carry its Allow header too', async () => {
    const res = await app.inject({ method: 'POST', url: PRODUCTS, headers: auth, payload: [] });
    expect(res.statusCode).toBe(400);
    expect(res.headers.allow).toBe(ALLOW);
  });
});
