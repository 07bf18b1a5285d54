// What clients of the marketplace API rely on across every list and path: bare JSON arrays
// paged by Link and X-Total-Count, the shops a key sees, paths with or without their trailing
// slash, and one timestamp form in replies.
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.ts';
import { expectProblem, pageOf, product, write } from './catalog-helpers.ts';

const daemon = await useTestDaemon();
const app = daemon.app!;
const { shopPk, auth } = await daemon.shopWithKey({ name: 'Lists shop' });
const other = await daemon.shopWithKey({ name: 'Another shop' });
const mp = (await daemon.services.marketplaces.create({ name: 'Lists marketplace', pk: 4_100 })).pk;
const PRODUCTS = `/shops/${shopPk}/products/`;
const STAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;
const sql = new pg.Pool({ connectionString: daemon.database.url, max: 2 });
afterAll(() => sql.end());

const get = (url: string, headers: Record<string, string> = auth) => app.inject({ url, headers: { ...headers, host: 'api.test' } });

// Three products (two variations, two images each on the first), and two orders.
const created = await write(
  app,
  auth,
  'POST',
  PRODUCTS,
  ['A', 'B', 'C'].map((s, i) =>
    product(
      `LS-${s}`,
      i > 0
        ? {}
        : {
            images: ['https://cdn.example/1.jpg', 'https://cdn.example/2.jpg'],
            variations: [{ sku: 'LS-A-1', images: ['https://cdn.example/1.jpg', 'https://cdn.example/2.jpg'] }, { sku: 'LS-A-2' }],
          },
    ),
  ),
);
const productPk = created.result.success[0]!.product_pk as number;
const variationPk = (created.result.success[0]!.variation_pks as number[])[0]!;
for (const orderPk of [1, 2]) {
  const res = await app.inject({
    method: 'POST',
    url: `/shops/${shopPk}/marketplace/${mp}/orders/`,
    headers: auth,
    payload: { order_pk: orderPk, items: [{ item_pk: 1, sku: 'LS-A', quantity: 1, price: 10 }] },
  });
  expect(res.statusCode).toBe(201);
}

describe('every list is a bare JSON array, paged by Link and X-Total-Count', () => {
  it.each([
    ['products', PRODUCTS, 3],
    ['variations of a product', `${PRODUCTS}${productPk}/variations/`, 2],
    ['images of a variation', `${PRODUCTS}${productPk}/variations/${variationPk}/images/`, 2],
    ['shops', '/shops/', 1],
    ['feeds of the key', '/feeds/', 1],
    ['feeds of the shop', `/shops/${shopPk}/feeds/`, 1],
    ['orders of the shop', `/shops/${shopPk}/orders/`, 2],
    ['orders of a marketplace', `/shops/${shopPk}/marketplace/${mp}/orders/`, 2],
  ])('%s', async (_what, url, total) => {
    const all = pageOf(await get(url));
    expect(all.total).toBe(total);
    expect(all.items).toHaveLength(total);
    // Feeds' pks are strings; orders carry order_pk (and pk where orders have one).
    for (const item of all.items) expect(['number', 'string']).toContain(typeof (item.pk ?? item.order_pk));
    expect(all.links).toEqual({ first: `http://api.test${url}?page=1&page_size=100`, last: `http://api.test${url}?page=1&page_size=100` });

    // One per page: first, next and last name pages by absolute URL, keeping other parameters.
    const first = pageOf(await get(`${url}?page_size=1&x=kept`));
    expect(first.items).toEqual([all.items[0]]);
    expect(first.total).toBe(total);
    expect(first.links).toEqual({
      first: `http://api.test${url}?page_size=1&x=kept&page=1`,
      ...(total > 1 ? { next: `http://api.test${url}?page_size=1&x=kept&page=2` } : {}),
      last: `http://api.test${url}?page_size=1&x=kept&page=${total}`,
    });
    const last = pageOf(await get(first.links.last!.replace('http://api.test', '')));
    expect(last.items).toEqual([all.items[total - 1]]);
    expect(last.links.next).toBeUndefined();
    if (total > 1) expect(last.links.prev).toContain(`page=${total - 1}`);
    expectProblem(await get(`${url}?page_size=1001`), 400, 'validation_failed');
  });

  it('a page past the end is empty and points back at the last one', async () => {
    const past = pageOf(await get(`${PRODUCTS}?page=9&page_size=2`));
    expect(past).toMatchObject({ items: [], total: 3 });
    expect(past.links.prev).toBe(`http://api.test${PRODUCTS}?page=2&page_size=2`);
  });
});

describe('GET /shops/ and /shops/{shop}/', () => {
  it("lists the key's own shop with its marketplaces: a token check answers 200", async () => {
    const res = await get('/shops/?page_size=1');
    const page = pageOf(res);
    expect(page.total).toBe(1);
    expect(page.items).toEqual([
      {
        pk: shopPk,
        name: 'Lists shop',
        marketplaces: expect.arrayContaining([{ pk: mp, name: 'Lists marketplace' }]),
        created_at: expect.stringMatching(STAMP),
      },
    ]);
    expect(pageOf(await get('/shops/', other.auth)).items.map((s) => s.pk)).toEqual([other.shopPk]);
  });

  it('answers 401 without a valid key, as every path does', async () => {
    for (const headers of [{}, { authorization: 'Token wb_nope' }] as Record<string, string>[]) {
      const res = await get('/shops/?page_size=1', headers);
      expectProblem(res, 401, 'unauthorized');
      expect(res.headers['www-authenticate']).toBe('Token');
    }
  });

  it("answers one shop to its key, 404 to another shop's key", async () => {
    const res = await get(`/shops/${shopPk}/`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(pageOf(await get('/shops/')).items[0]);
    expect(res.headers.allow).toBe('GET, OPTIONS');
    expectProblem(await get(`/shops/${shopPk}/`, other.auth), 404, 'not_found');
    expectProblem(await get('/shops/999999/'), 404, 'not_found');
  });
});

describe('a path with or without its trailing slash', () => {
  it('reads the same resource', async () => {
    for (const url of [`/shops/${shopPk}`, PRODUCTS.slice(0, -1), `${PRODUCTS}${productPk}`, '/feeds', `/feeds/${created.pk}`]) {
      const [bare, slashed] = [await get(url), await get(`${url}/`)];
      expect(bare.statusCode, url).toBe(200);
      expect(bare.json()).toEqual(slashed.json());
      expect(bare.headers.allow).toBe(slashed.headers.allow);
    }
  });

  it('takes a write without a redirect', async () => {
    const res = await app.inject({ method: 'POST', url: PRODUCTS.slice(0, -1), headers: auth, payload: product('LS-NOSLASH') });
    expect(res.statusCode).toBe(201);
    expect(res.headers.location).toMatch(/\/feeds\/[0-9a-f-]+\/$/);
    const act = await app.inject({ method: 'POST', url: `/shops/${shopPk}/marketplace/${mp}/orders/1/ready_to_ship`, headers: auth });
    expect(act.statusCode).toBe(204);
  });

  it('answers OPTIONS and 405 with the same Allow', async () => {
    for (const url of [PRODUCTS, PRODUCTS.slice(0, -1)]) {
      const options = await app.inject({ method: 'OPTIONS', url, headers: auth });
      expect(options.statusCode).toBe(204);
      expect(options.headers.allow).toBe('GET, POST, PUT, DELETE, OPTIONS');
      const patch = await app.inject({ method: 'PATCH', url, headers: auth, payload: {} });
      expectProblem(patch, 405, 'method_not_allowed');
      expect(patch.headers.allow).toBe('GET, POST, PUT, DELETE, OPTIONS');
      // Methods outside Fastify's usual set (TRACE, WebDAV's PROPFIND) are 405 too, not 404.
      for (const method of ['TRACE', 'PROPFIND', 'MKCOL'] as const) {
        const other = await app.inject({ method: method as 'GET', url, headers: auth });
        expect(other.statusCode, method).toBe(405);
        expect(other.headers.allow).toBe('GET, POST, PUT, DELETE, OPTIONS');
      }
    }
  });

  it('is one operation in the OpenAPI document, whose lists are arrays with their paging headers', async () => {
    const doc = (await app.inject({ url: '/openapi.json' })).json() as {
      paths: Record<
        string,
        Record<string, { responses: Record<string, { headers?: object; content: Record<string, { schema: { type: string } }> }> }>
      >;
    };
    const list = doc.paths['/shops/{shop}/products/']!.get!.responses['200']!;
    expect(list.content['application/json']!.schema.type).toBe('array');
    expect(Object.keys(list.headers ?? {}).sort()).toEqual(['link', 'x-total-count']);
    const paths = Object.keys(doc.paths);
    expect(paths).toContain('/shops/{shop}/products/');
    expect(paths).toContain('/shops/');
    expect(paths).not.toContain('/shops/{shop}/products');
    expect(
      paths.filter(
        (p) =>
          !p.endsWith('/') &&
          !p.startsWith('/admin') &&
          !['/healthz', '/readyz', '/metrics', '/openapi.json', '/connectors/{name}/webhook'].includes(p),
      ),
    ).toEqual([]);
  });
});

describe('timestamps', () => {
  it('every reply carries YYYY-MM-DDThh:mm:ss (UTC)', async () => {
    const [p] = pageOf<{ created_at: string; updated_at: string; variations: { created_at: string }[] }>(
      await get(`${PRODUCTS}?sku=LS-A`),
    ).items;
    expect([p!.created_at, p!.updated_at, p!.variations[0]!.created_at]).toEqual([
      expect.stringMatching(STAMP),
      expect.stringMatching(STAMP),
      expect.stringMatching(STAMP),
    ]);
    // UTC: the stored instant, to the second.
    const stored = (await sql.query('select created_at from products where sku = $1', ['LS-A'])).rows[0].created_at as Date;
    expect(p!.created_at).toBe(stored.toISOString().slice(0, 19));
    const feed = (await get(`/feeds/${created.pk}/`)).json() as Record<string, string>;
    expect([feed.created_at, feed.started_at, feed.finished_at]).toEqual([
      expect.stringMatching(STAMP),
      expect.stringMatching(STAMP),
      expect.stringMatching(STAMP),
    ]);
    expect(pageOf(await get('/feeds/')).items[0]!.created_at).toMatch(STAMP);
    const order = (await get(`/shops/${shopPk}/marketplace/${mp}/orders/2/`)).json() as Record<string, string>;
    expect([order.created_at, order.updated_at]).toEqual([expect.stringMatching(STAMP), expect.stringMatching(STAMP)]);
  });

  it("bodies take the document's form (UTC) and ISO 8601 with a zone; both read back in UTC", async () => {
    await write(app, auth, 'POST', PRODUCTS, [
      product('LS-TZ', {
        discount: 10,
        discount_from: '2026-01-01T10:00:00+02:00',
        discount_to: '2026-01-31T23:30:00',
        variations: [{ sku: 'LS-TZ-1', discount_from: '2026-01-01T00:00:00.900Z', discount_to: '2026-01-02T01:00:00-05:00' }],
      }),
    ]);
    const [p] = pageOf<Record<string, unknown> & { variations: Record<string, unknown>[] }>(await get(`${PRODUCTS}?sku=LS-TZ`)).items;
    expect(p).toMatchObject({ discount_from: '2026-01-01T08:00:00', discount_to: '2026-01-31T23:30:00' });
    expect(p!.variations[0]).toMatchObject({ discount_from: '2026-01-01T00:00:00', discount_to: '2026-01-02T06:00:00' });
  });

  it("updated_since takes the document's form (UTC) and ISO 8601 with a zone", async () => {
    const stored = (await sql.query('select max(updated_at) as at from products where shop_pk = $1', [shopPk])).rows[0].at as Date;
    const after = new Date(stored.getTime() + 2_000);
    const plain = after.toISOString().slice(0, 19);
    expect(pageOf(await get(`${PRODUCTS}?updated_since=${plain}`)).total).toBe(0);
    const before = new Date(stored.getTime() - 3_600_000).toISOString().slice(0, 19);
    expect(pageOf(await get(`${PRODUCTS}?updated_since=${before}`)).total).toBeGreaterThan(0);
    // The same instant two hours east of UTC, and in Z with fractions.
    const east = new Date(after.getTime() + 7_200_000).toISOString().slice(0, 19);
    expect(pageOf(await get(`${PRODUCTS}?updated_since=${east}${encodeURIComponent('+02:00')}`)).total).toBe(0);
    expect(pageOf(await get(`${PRODUCTS}?updated_since=${before}.000Z`)).total).toBeGreaterThan(0);
    expectProblem(await get(`${PRODUCTS}?updated_since=2026-02-30T00:00:00`), 400, 'validation_failed');
  });
});

describe('X-Total-Count of products, kept by the writer', () => {
  const total = async (headers = auth): Promise<number> =>
    pageOf(await get(`${PRODUCTS.replace(String(shopPk), String(headers === auth ? shopPk : other.shopPk))}?page_size=1`, headers)).total;
  const live = async (pk: number): Promise<number> =>
    Number((await sql.query('select count(*) as n from products where shop_pk = $1 and deleted_at is null', [pk])).rows[0].n);

  it('follows inserts, updates, deletes and re-creations, and pages reach every product once', async () => {
    const start = await total();
    expect(start).toBe(await live(shopPk));
    await write(
      app,
      auth,
      'POST',
      PRODUCTS,
      Array.from({ length: 25 }, (_, i) => product(`CNT-${i}`)),
    );
    expect(await total()).toBe(start + 25);
    // Sent again, changed or not: no new product.
    await write(app, auth, 'POST', PRODUCTS, [product('CNT-0'), product('CNT-1', { stock: 9 })]);
    await write(app, auth, 'PUT', PRODUCTS, [{ sku: 'CNT-2', stock: 1 }]);
    expect(await total()).toBe(start + 25);
    // Deleted (twice: counted once), one alone by DELETE /products/{pk}/, then some back.
    await write(app, auth, 'DELETE', PRODUCTS, [{ sku: 'CNT-3' }, { sku: 'CNT-4' }, { sku: 'CNT-5' }, { sku: 'CNT-3' }]);
    await write(app, auth, 'DELETE', PRODUCTS, [{ sku: 'CNT-3' }]);
    const one = pageOf(await get(`${PRODUCTS}?sku=CNT-6`)).items[0]!.pk as number;
    expect((await app.inject({ method: 'DELETE', url: `${PRODUCTS}${one}/`, headers: auth })).statusCode).toBe(204);
    expect(await total()).toBe(start + 21);
    await write(app, auth, 'POST', PRODUCTS, [product('CNT-3'), product('CNT-6'), product('CNT-NEW')]);
    expect(await total()).toBe(start + 24);
    expect(await total()).toBe(await live(shopPk));
    // The other shop's count is its own.
    expect(await total(other.auth)).toBe(0);

    // Every page, read by its number, holds the next products by pk: none twice, none missed.
    const seen: number[] = [];
    for (let page = 1; page <= Math.ceil((start + 24) / 4); page++) {
      seen.push(...pageOf(await get(`${PRODUCTS}?page=${page}&page_size=4`)).items.map((p) => p.pk as number));
    }
    const pks = (await sql.query('select pk from products where shop_pk = $1 and deleted_at is null order by pk', [shopPk])).rows.map((r) =>
      Number(r.pk),
    );
    expect(seen).toEqual(pks);
  });
});
