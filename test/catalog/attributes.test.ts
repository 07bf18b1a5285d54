// Real catalog data is accepted: `shipping: -1`, category attributes kept (stored, returned,
// updatable, removable by null, never a warning), and what a GET returns can be sent back
// unchanged. One object or a list on every write. A single variation and a variation's image.
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.ts';
import { expectProblem, write } from './catalog-helpers.ts';

const daemon = await useTestDaemon();
const app = daemon.app!;
const { shopPk, auth } = await daemon.shopWithKey();
const PRODUCTS = `/shops/${shopPk}/products/`;
const sql = new pg.Pool({ connectionString: daemon.database.url, max: 2 });
afterAll(() => sql.end());

type Json = Record<string, unknown>;
const get = async (url: string): Promise<Json> => {
  const res = await app.inject({ url, headers: auth });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Json;
};

/** 15 category attributes as a marketplace catalog carries them (laptops). */
const ATTRIBUTES = {
  model: 'ThinkBook 14 G6',
  screen_size: 14,
  screen_size_unit: 'in',
  processor_type: 'Intel Core i5-1335U',
  ram_size: 16,
  ram_size_unit: 'GB',
  operating_system: 'Windows 11 Pro',
  description_html: '<p>Light <b>and</b> fast</p>',
  description_url: 'https://shop.example/tb14',
  part_number: '21KG0063SP',
  color_text: 'Arctic grey',
  listing_type: 'gold_special',
  special_price: 699.99,
  warranty: { months: 24, kind: 'carry-in' },
  connectivity: ['wifi-6e', 'bluetooth-5.3'],
};

/** A real-looking product: documented fields, 15 attributes, shipping -1, images in both forms, two variations. */
const laptop = (sku: string) => ({
  sku,
  name: 'Lenovo ThinkBook 14 G6',
  brand: 'Lenovo',
  category_pk: 1043,
  description: 'A 14" business laptop',
  price: 749.9,
  stock: 12,
  availability: 'in_stock',
  condition: 'new',
  tax: '16.00',
  delivery_time: 3,
  discount: 5,
  discount_from: '2026-11-01T00:00:00',
  discount_to: '2026-12-01T00:00:00',
  weight: 1.38,
  weight_unit: 'kg',
  width: 31.3,
  height: 1.79,
  depth: 22.4,
  dimensions_unit: 'cm',
  shipping: -1,
  is_default: true,
  ...ATTRIBUTES,
  images: [`https://cdn.example/${sku}/front.jpg`, { url: `https://cdn.example/${sku}/side.jpg` }],
  variations: [
    { sku: `${sku}-16`, stock: 7, color: 'grey', ram_size: 16, images: [`https://cdn.example/${sku}/front.jpg`] },
    { sku: `${sku}-32`, price: 899.9, stock: 5, color: 'grey', ram_size: 32, images: [{ url: `https://cdn.example/${sku}/back.jpg` }] },
  ],
});

const stripStamps = (p: Json): Json => ({
  ...p,
  updated_at: undefined,
  variations: (p.variations as Json[]).map((v) => ({ ...v, updated_at: undefined })),
});

describe('a real product round trip', () => {
  it('is accepted with shipping -1 and 15 attributes, returned as sent, and a GET sent back changes nothing', async () => {
    const created = await write(app, auth, 'POST', PRODUCTS, laptop('TB14'));
    expect(created).toMatchObject({ status: 'Complete', counts: { succeeded: 1, failed: 0, warnings: 0 } });
    const s = created.result.success[0]!;
    expect(s).toMatchObject({ sku: 'TB14', warning: [], warnings: [] });
    const url = `${PRODUCTS}${String(s.product_pk)}/`;
    const first = await get(url);
    expect(first).toMatchObject({ ...ATTRIBUTES, sku: 'TB14', shipping: -1, price: 749.9, discount: 5, tax: '16.00' });
    expect(first.images).toEqual([
      { pk: expect.any(Number), url: 'https://cdn.example/TB14/front.jpg', position: 0 },
      { pk: expect.any(Number), url: 'https://cdn.example/TB14/side.jpg', position: 1 },
      { pk: expect.any(Number), url: 'https://cdn.example/TB14/back.jpg', position: 2 },
    ]);
    expect(first.variations).toMatchObject([
      { sku: 'TB14-16', ram_size: 16, price: 749.9, images: [{ url: 'https://cdn.example/TB14/front.jpg', position: 0 }] },
      { sku: 'TB14-32', ram_size: 32, price: 899.9, images: [{ url: 'https://cdn.example/TB14/back.jpg', position: 0 }] },
    ]);
    // Stored as one attributes document beside the documented ones.
    expect((await sql.query(`select attrs from products where sku = 'TB14'`)).rows[0].attrs).toMatchObject(ATTRIBUTES);

    // POST the GET back (pk, shop_pk, created_at, updated_at, image pk/position, variation pk/product_pk...).
    const again = await write(app, auth, 'POST', PRODUCTS, first);
    expect(again).toMatchObject({ status: 'Complete', counts: { succeeded: 1, failed: 0, warnings: 0 } });
    expect(again.result.success[0]).toMatchObject({ product_pk: first.pk, warning: [] });
    expect(stripStamps(await get(url))).toEqual(stripStamps(first));

    // PUT it back to the products and its variations back to the variations: the same.
    const put = await write(app, auth, 'PUT', PRODUCTS, [{ ...first, marketplaces: [{ pk: 1, name: 'MP' }] }]);
    expect(put).toMatchObject({ counts: { succeeded: 1, failed: 0, warnings: 0 } });
    const variations = (await app.inject({ url: `${url}variations/`, headers: auth })).json() as Json[];
    const vput = await write(app, auth, 'PUT', `${url}variations/`, variations);
    expect(vput).toMatchObject({ counts: { succeeded: 2, failed: 0, warnings: 0 } });
    // ... and the product's images back to its images (a reorder to where they are).
    const images = (await app.inject({ url: `${url}images/`, headers: auth })).json() as Json[];
    expect(await write(app, auth, 'PUT', `${url}images/`, images)).toMatchObject({ counts: { succeeded: 3, failed: 0 } });
    expect(await write(app, auth, 'POST', `${url}images/`, images)).toMatchObject({ counts: { succeeded: 3, failed: 0 } });
    expect(stripStamps(await get(url))).toEqual(stripStamps(first));
  });

  it('PUT updates an attribute, adds one, removes one with null; documented names are never attributes', async () => {
    const s = (await write(app, auth, 'POST', PRODUCTS, laptop('TB15'))).result.success[0]!;
    const url = `${PRODUCTS}${String(s.product_pk)}/`;
    const feed = await write(app, auth, 'PUT', PRODUCTS, {
      pk: s.product_pk,
      ram_size: 32,
      hdmi_ports: 1,
      listing_type: null,
      special_price: null,
    });
    expect(feed).toMatchObject({ counts: { succeeded: 1, warnings: 0 } });
    const got = await get(url);
    expect(got).toMatchObject({ ram_size: 32, hdmi_ports: 1, model: 'ThinkBook 14 G6' });
    expect(got).not.toHaveProperty('listing_type');
    expect(got).not.toHaveProperty('special_price');
    // A variation's attributes: the same rules.
    const [v16] = got.variations as Json[];
    await write(app, auth, 'PUT', `${url}variations/`, { pk: v16!.pk, ram_size: null, keyboard_layout: 'ES' });
    const v = await get(`${url}variations/${String(v16!.pk)}/`);
    expect(v).toMatchObject({ sku: 'TB15-16', keyboard_layout: 'ES' });
    expect(v).not.toHaveProperty('ram_size');
    // A documented field with a wrong value is an error, not an attribute.
    const bad = expectProblem(
      await app.inject({ method: 'PUT', url: PRODUCTS, headers: auth, payload: { pk: s.product_pk, stock: 'many', gender: 'robot' } }),
      400,
      'validation_failed',
    );
    expect(bad.errors!.map((e) => e.pointer)).toEqual(['/stock', '/gender']);
  });

  it('bounds: price >= 0, stock >= 0, discount 0-99; shipping, weight and sizes any number', async () => {
    const res = await app.inject({
      method: 'POST',
      url: PRODUCTS,
      headers: auth,
      payload: [
        { sku: 'B-1', name: 'b', price: -1, stock: -1, discount: 99.5 },
        {
          sku: 'B-2',
          name: 'b',
          price: 0,
          stock: 0,
          discount: 0,
          shipping: -1,
          weight: -2,
          width: -3,
          shipping_price_mia: -4,
          category_pk: 0,
        },
      ],
    });
    expect(expectProblem(res, 400, 'validation_failed').errors!.map((e) => [e.pointer, e.code])).toEqual([
      ['/0/price', 'too_small'],
      ['/0/stock', 'too_small'],
      ['/0/discount', 'too_large'],
    ]);
    const ok = await write(app, auth, 'POST', PRODUCTS, [
      { sku: 'B-2', name: 'b', price: 0, stock: 0, discount: 99, shipping: -1, weight: -2, category_pk: 0 },
    ]);
    expect(ok.counts).toMatchObject({ succeeded: 1, failed: 0 });
  });
});

describe('one object or a list on every write', () => {
  it('a bare {pk, stock} is a stock update and a bare {pk} a delete', async () => {
    const s = (await write(app, auth, 'POST', PRODUCTS, { sku: 'BARE-1', name: 'b', price: 1, stock: 1 })).result.success[0]!;
    expect(await write(app, auth, 'PUT', PRODUCTS, { pk: s.product_pk, stock: 3 })).toMatchObject({ counts: { succeeded: 1 } });
    expect(await get(`${PRODUCTS}${String(s.product_pk)}/`)).toMatchObject({ stock: 3 });
    expect(await write(app, auth, 'DELETE', PRODUCTS, { pk: s.product_pk })).toMatchObject({ counts: { succeeded: 1 } });
    expect((await app.inject({ url: `${PRODUCTS}${String(s.product_pk)}/`, headers: auth })).statusCode).toBe(404);
  });
});

describe('GET .../variations/{variation}/ and .../variations/{variation}/images/{image}/', () => {
  it('answer one variation and one of its images; 404 for others; Allow GET, OPTIONS', async () => {
    const s = (await write(app, auth, 'POST', PRODUCTS, laptop('ONE'))).result.success[0]!;
    const [v16, v32] = s.variation_pks as number[];
    const base = `${PRODUCTS}${String(s.product_pk)}/variations/`;
    const res = await app.inject({ url: `${base}${v32}/`, headers: auth });
    expect([res.statusCode, res.headers.allow]).toEqual([200, 'GET, OPTIONS']);
    const v = res.json() as Json & { images: Json[] };
    expect(v).toMatchObject({ pk: v32, product_pk: s.product_pk, sku: 'ONE-32', price: 899.9, stock: 5, ram_size: 32 });
    const image = await app.inject({ url: `${base}${v32}/images/${String(v.images[0]!.pk)}/`, headers: auth });
    expect([image.statusCode, image.headers.allow]).toEqual([200, 'GET, OPTIONS']);
    expect(image.json()).toEqual({ pk: v.images[0]!.pk, url: 'https://cdn.example/ONE/back.jpg', position: 0 });
    // An image of the product that is not the variation's, an unknown variation: 404.
    expectProblem(await app.inject({ url: `${base}${v16}/images/${String(v.images[0]!.pk)}/`, headers: auth }), 404, 'not_found');
    expectProblem(await app.inject({ url: `${base}999999/`, headers: auth }), 404, 'not_found');
    const options = await app.inject({ method: 'OPTIONS', url: `${base}${v16}/`, headers: auth });
    expect([options.statusCode, options.headers.allow]).toEqual([204, 'GET, OPTIONS']);
  });
});
