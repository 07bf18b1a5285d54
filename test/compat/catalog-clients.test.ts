// waybill driven the way the marketplace's existing catalog clients drive it (the PHP SDK, the
// Magento 2 module, the JavaScript dashboards), over real HTTP with only the base URL changed:
// list-shaped bodies, bare-object stock updates, image sync (GET the product, DELETE/POST/PUT
// its images, then assign images to variations), each write's feed polled until `Complete`.
// Every field those clients read from a reply is asserted here.
import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.ts';
import { until } from '../helpers/until.ts';

const daemon = await useTestDaemon();
const { shopPk, key } = await daemon.shopWithKey({ name: 'Compat shop' });
const BASE = daemon.url!;

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
interface Reply {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/** What the SDK sends on every call: Accept JSON and "Token <key>". */
async function call(method: string, path: string, body?: unknown): Promise<Reply> {
  for (let i = 0; ; i++) {
    const res = await fetch(`${BASE}${path}`, {
      method,
      headers: {
        accept: 'application/json',
        authorization: `Token ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    // A busy test machine may shed load (503 + Retry-After): the clients retry too.
    if (res.status === 503 && i < 20) {
      await new Promise((r) => setTimeout(r, 200));
      continue;
    }
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text === '' ? null : JSON.parse(text) };
  }
}

/** Clients `foreach` the decoded body of a list: it must be the array itself. */
const listOf = (body: unknown): Json[] => {
  expect(Array.isArray(body)).toBe(true);
  return body as Json[];
};

/**
 * A catalog write as the clients do it: 201, the feed id from the last segment of Location,
 * then GET /feeds/{id}/ until status is no longer Wait. Returns the finished feed.
 */
async function feedOf(method: string, path: string, body: unknown): Promise<Json> {
  const res = await call(method, path, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const location = res.headers.get('location')!;
  const id = location.split('/').filter(Boolean).pop()!;
  expect(id).toMatch(/^[A-Za-z0-9_-]+$/);
  expect(res.body.pk).toBe(id);
  expect(res.body.status).toBe('Wait');
  // Anything but a 200 "Wait" ends the wait, so an unexpected answer fails at once.
  const feed = await until(
    `feed ${id} to finish`,
    async () => {
      const f = await call('GET', `/feeds/${id}/`);
      return f.status !== 200 || f.body.status !== 'Wait' ? f : false;
    },
    15_000,
  );
  expect(feed.status).toBe(200);
  expect(feed.body.status).toBe('Complete');
  expect(feed.body.pk).toBe(id);
  return feed.body as Json;
}

/** What a client checks in each success item before it marks the item synced. */
function expectSynced(item: Json, sku: string): void {
  expect(item.sku).toBe(sku);
  expect(typeof item.product_pk).toBe('number');
  expect(Array.isArray(item.warning)).toBe(true);
  for (const w of item.warning) expect(typeof w).toBe('string');
}

const PRODUCTS = `/shops/${shopPk}/products/`;
const img = (n: string) => `https://images.shop.example/catalog/${n}.jpg`;

describe('the catalog clients', () => {
  it('PHP SDK: create products from a list, read product_pk, images (url_source) and variation pks from the report', async () => {
    const feed = await feedOf('POST', PRODUCTS, [
      {
        sku: 'SDK-1',
        name: 'Sneaker',
        price: 59.9,
        stock: 10,
        shipping: -1,
        model: 'Runner',
        material: 'mesh',
        images: [img('sdk-1-a'), { url: img('sdk-1-b') }],
        variations: [
          { sku: 'SDK-1-40', size: '40', stock: 4, images: [img('sdk-1-a')] },
          { sku: 'SDK-1-41', size: '41', stock: 6 },
        ],
      },
      { sku: 'SDK-2', name: 'Sock', price: 4.5, stock: 100 },
    ]);
    expect(feed.result.errors).toEqual([]);
    const [one, two] = feed.result.success as Json[];
    expectSynced(one!, 'SDK-1');
    expectSynced(two!, 'SDK-2');
    expect(one!.warning).toEqual([]);
    expect(one!.images.map((i: Json) => i.url_source)).toEqual([img('sdk-1-a'), img('sdk-1-b')]);
    for (const i of one!.images)
      expect(i).toEqual({ image_pk: expect.any(Number), url: i.url_source, url_source: i.url_source, position: expect.any(Number) });
    expect(one!.variation_pks).toHaveLength(2);
    // The product as the clients read it back: a list (filtered by sku), then by pk.
    const listed = listOf((await call('GET', `${PRODUCTS}?sku=SDK-1`)).body);
    expect(listed.map((p) => p.pk)).toEqual([one!.product_pk]);
    const got = (await call('GET', `${PRODUCTS}${one!.product_pk}/`)).body;
    expect(got).toMatchObject({ pk: one!.product_pk, sku: 'SDK-1', shipping: -1, model: 'Runner', material: 'mesh' });
    expect(got.variations.map((v: Json) => [v.pk, v.sku])).toEqual([
      [one!.variation_pks[0], 'SDK-1-40'],
      [one!.variation_pks[1], 'SDK-1-41'],
    ]);
  });

  it('Magento module: bare-object stock updates of a product and of a variation', async () => {
    const created = await feedOf('POST', PRODUCTS, [
      {
        sku: 'MAG-1',
        name: 'Kettle',
        price: 30,
        stock: 1,
        variations: [
          { sku: 'MAG-1-B', stock: 1 },
          { sku: 'MAG-1-W', stock: 1 },
        ],
      },
    ]);
    const s = created.result.success[0] as Json;
    // The variation updated below: its pk differs from its product's (ids of two tables may coincide).
    const vw = (s.variation_pks as number[])[1]!;
    expect(vw).not.toBe(s.product_pk);
    const product = await feedOf('PUT', PRODUCTS, { pk: s.product_pk, stock: 7 });
    expectSynced(product.result.success[0], 'MAG-1');
    expect(product.result.success[0].product_pk).toBe(s.product_pk);
    const variation = await feedOf('PUT', `${PRODUCTS}${s.product_pk}/variations/`, { pk: vw, stock: 2 });
    const v = variation.result.success[0] as Json;
    expectSynced(v, 'MAG-1-W');
    // The module stores product_pk as the variation's id and parent_pk as its product's.
    expect([v.product_pk, v.parent_pk]).toEqual([vw, s.product_pk]);
    const got = (await call('GET', `${PRODUCTS}${s.product_pk}/`)).body;
    expect([got.stock, got.variations.find((x: Json) => x.pk === vw).stock]).toEqual([7, 2]);
    // An update of a variation that is not there: an error item with a message string.
    const missing = await feedOf('PUT', `${PRODUCTS}${s.product_pk}/variations/`, [{ pk: 987654, stock: 1 }]);
    expect(missing.result.success).toEqual([]);
    expect(missing.result.errors[0]).toMatchObject({ product_pk: 987654, message: expect.any(String) });
  });

  it('image sync: GET the product, DELETE the stale, POST the new, PUT the order, then assign images to variations', async () => {
    const created = await feedOf('POST', PRODUCTS, [
      {
        sku: 'SYNC-1',
        name: 'Lamp',
        price: 20,
        stock: 5,
        images: [img('old-1'), img('keep-1'), img('old-2')],
        variations: [
          { sku: 'SYNC-1-R', color: 'red' },
          { sku: 'SYNC-1-B', color: 'blue' },
        ],
      },
    ]);
    const productPk = (created.result.success[0] as Json).product_pk as number;
    const IMAGES = `${PRODUCTS}${productPk}/images/`;
    // What the shop wants now, in this order.
    const wanted = [img('new-1'), img('keep-1'), img('new-2')];

    // 1. GET the product; its images by url.
    const product = (await call('GET', `${PRODUCTS}${productPk}/`)).body;
    const have = new Map<string, number>(product.images.map((i: Json) => [i.url, i.pk]));
    // 2. DELETE the ones no longer wanted.
    const stale = [...have].filter(([url]) => !wanted.includes(url)).map(([, pk]) => ({ pk }));
    const removed = await feedOf('DELETE', IMAGES, stale);
    expect(removed.result.errors).toEqual([]);
    expect(removed.result.success.map((i: Json) => i.image_pk).sort()).toEqual(stale.map((s) => s.pk).sort());
    for (const i of removed.result.success)
      expect(i).toMatchObject({ product_pk: productPk, url_source: expect.any(String), position: expect.any(Number) });
    // 3. POST the new ones; the report maps each address sent (url_source) to its image_pk.
    const added = await feedOf(
      'POST',
      IMAGES,
      wanted.filter((u) => !have.has(u)).map((url) => ({ url })),
    );
    expect(added.result.errors).toEqual([]);
    for (const i of added.result.success)
      expect(Object.keys(i)).toEqual(expect.arrayContaining(['product_pk', 'image_pk', 'url_source', 'position']));
    const pkOf = new Map<string, number>([...have].filter(([url]) => wanted.includes(url)));
    for (const i of added.result.success) pkOf.set(i.url_source, i.image_pk);
    expect([...pkOf.keys()].sort()).toEqual([...wanted].sort());
    // 4. PUT the order.
    const ordered = await feedOf(
      'PUT',
      IMAGES,
      wanted.map((url, position) => ({ pk: pkOf.get(url), position })),
    );
    expect(ordered.result.success.map((i: Json) => [i.image_pk, i.position])).toEqual(
      wanted.map((url, position) => [pkOf.get(url), position]),
    );
    const images = listOf((await call('GET', IMAGES)).body);
    expect(images.map((i) => [i.url, i.position])).toEqual(wanted.map((url, position) => [url, position]));
    // 5. Assign images to the variations: one item per image in the report.
    const [red, blue] = product.variations as Json[];
    const assigned = await feedOf('POST', `${PRODUCTS}${productPk}/variations/${red!.pk}/images/`, [
      { pk: pkOf.get(img('new-2')) },
      { pk: pkOf.get(img('keep-1')) },
    ]);
    expect(assigned.result.success.map((i: Json) => [i.product_pk, i.image_pk, i.url_source, i.position])).toEqual([
      [productPk, pkOf.get(img('new-2')), img('new-2'), 0],
      [productPk, pkOf.get(img('keep-1')), img('keep-1'), 1],
    ]);
    await feedOf('POST', `${PRODUCTS}${productPk}/variations/${blue!.pk}/images/`, { pk: pkOf.get(img('new-1')) });
    const after = (await call('GET', `${PRODUCTS}${productPk}/`)).body;
    expect(after.variations.map((v: Json) => [v.sku, v.images.map((i: Json) => i.url)])).toEqual([
      ['SYNC-1-R', [img('new-2'), img('keep-1')]],
      ['SYNC-1-B', [img('new-1')]],
    ]);
    // A variation image the client asks for by pk; an image that is not the product's is an error with image_pk.
    const one = await call('GET', `${PRODUCTS}${productPk}/variations/${red!.pk}/images/${pkOf.get(img('keep-1'))}/`);
    expect(one.body).toEqual({ pk: pkOf.get(img('keep-1')), url: img('keep-1'), position: 1 });
    const wrong = await feedOf('POST', `${PRODUCTS}${productPk}/variations/${red!.pk}/images/`, [{ pk: 55555555 }]);
    expect(wrong.result.errors[0]).toMatchObject({ image_pk: 55555555, product_pk: productPk, message: expect.any(String) });
  });

  it('dashboards: the field catalog and a round trip of what a GET returns', async () => {
    const fields = (await call('GET', '/fields/')).body as Json[];
    expect(fields.find((f) => f.name === 'sku')).toMatchObject({ requirement: 'Required', in_variation: true });
    const created = await feedOf('POST', PRODUCTS, [
      { sku: 'DASH-1', name: 'Chair', price: 80, stock: 2, shipping: -1, seat_height: 45, images: [img('dash')] },
    ]);
    const pk = (created.result.success[0] as Json).product_pk;
    const got = (await call('GET', `${PRODUCTS}${pk}/`)).body;
    const back = await feedOf('PUT', PRODUCTS, [got]);
    expect(back.result.errors).toEqual([]);
    expectSynced(back.result.success[0], 'DASH-1');
    expect(back.result.success[0].warning).toEqual([]);
    expect((await call('GET', `${PRODUCTS}${pk}/`)).body).toMatchObject({
      seat_height: 45,
      shipping: -1,
      images: [{ url: img('dash'), position: 0 }],
    });
  });
});
