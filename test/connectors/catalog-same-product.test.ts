// One WooCommerce product (variable, two variations, one of them on sale, images, units in lb and
// in, tags, brand, a non-variation attribute) exported as WooCommerce's product CSV into a
// catalog-file inbox (preset woocommerce) for one shop, and pulled from WooCommerce's REST API
// (catalog-woocommerce, nock answering in the documented shapes) for another: both shops show the
// same product.
import fs from 'node:fs';
import path from 'node:path';
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.ts';
import { connectorsFile, tempDir } from '../helpers/connectors-file.ts';
import { until } from '../helpers/until.ts';
import { onlyNockedNetwork } from '../tracking/helpers.ts';
import { pullFixture } from './pull-helpers.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- products are compared field by field below
type Json = Record<string, any>;

process.env.WB_TEST_SAME_KEY = 'ck_same';
process.env.WB_TEST_SAME_SECRET = 'cs_same';
const inbox = tempDir();
const daemon = await useTestDaemon({
  env: {
    WAYBILL_CONNECTORS: connectorsFile([
      { name: 'woo-file', type: 'catalog-file', shop_pk: 1, enabled: false, options: { inbox, settle_ms: 0, preset: 'woocommerce' } },
      {
        name: 'woo-api',
        type: 'catalog-woocommerce',
        shop_pk: 2,
        schedule: '0 0 1 1 *',
        options: {
          base_url: 'https://same.example.test',
          consumer_key_env: 'WB_TEST_SAME_KEY',
          consumer_secret_env: 'WB_TEST_SAME_SECRET',
          retries: 0,
          // The store's units (WooCommerce > Settings > Products): the CSV export names them in its headers.
          weight_unit: 'lb',
          dimensions_unit: 'in',
        },
      },
    ]),
  },
});
const shops = [await daemon.shopWithKey({ name: 'From the CSV export' }), await daemon.shopWithKey({ name: 'From the API' })];
const app = daemon.app!;
onlyNockedNetwork();

/** Runs a connector now and waits for every feed it created to be applied. */
async function run(name: string, auth: { authorization: string }): Promise<Json> {
  const r = await daemon.services.connectors.execute({ name, trigger: 'cli' });
  if (r.status !== 'done') throw new Error(`connector ${name}: ${r.status}`);
  for (const pk of r.run.feed_pks)
    await until(
      `feed ${pk}`,
      async () => ['done', 'failed'].includes(((await app.inject({ url: `/feeds/${pk}/`, headers: auth })).json() as Json).state),
      20_000,
    );
  return r.run;
}

/** The product as the shop's API shows it, without what differs between two shops (keys, times). */
async function shown(shop: { shopPk: number; auth: { authorization: string } }, sku: string): Promise<Json> {
  const list = (await app.inject({ url: `/shops/${shop.shopPk}/products/?sku=${sku}`, headers: shop.auth })).json() as Json[];
  expect(list).toHaveLength(1);
  const one = (await app.inject({ url: `/shops/${shop.shopPk}/products/${list[0]!.pk}/`, headers: shop.auth })).json() as Json;
  const strip = (o: Json): Json =>
    Object.fromEntries(
      Object.entries(o)
        .filter(([k]) => !['pk', 'shop_pk', 'product_pk', 'created_at', 'updated_at', 'deleted_at'].includes(k))
        .map(([k, v]) => [k, Array.isArray(v) ? v.map((x) => (typeof x === 'object' && x !== null ? strip(x as Json) : x)) : v]),
    );
  return strip(one);
}

describe('the same WooCommerce product, from its CSV export and from its API', () => {
  it('is the same stored product: fields, variations, sale, images, units', async () => {
    fs.copyFileSync(
      path.resolve('connectors/catalog-file/fixtures/presets/woocommerce-linen-hoodie.csv'),
      path.join(inbox, 'wc-export.csv'),
    );
    const fromFile = await run('woo-file', shops[0]!.auth);
    expect(fromFile).toMatchObject({ outcome: 'succeeded', counts: { files_done: 1, products_sent: 1 } });

    const api = nock('https://same.example.test')
      .get('/wp-json/wc/v3/products')
      .query((q) => q.status === 'any')
      .reply(200, pullFixture('catalog-woocommerce', 'linen-hoodie.json') as unknown[], { 'X-WP-TotalPages': '1' })
      .get('/wp-json/wc/v3/products')
      .query((q) => q.status === 'trash')
      .reply(200, [], { 'X-WP-TotalPages': '1' })
      .get('/wp-json/wc/v3/products/901/variations')
      .query(true)
      .reply(200, pullFixture('catalog-woocommerce', 'linen-hoodie-variations.json') as unknown[], { 'X-WP-TotalPages': '1' });
    const fromApi = await run('woo-api', shops[1]!.auth);
    expect(api.isDone()).toBe(true);
    expect(fromApi).toMatchObject({ outcome: 'succeeded', counts: { products_changed: 1 } });

    const file = await shown(shops[0]!, 'LH-1');
    const pulled = await shown(shops[1]!, 'LH-1');
    // What the shop owner sees, the same both ways.
    expect(file).toMatchObject({
      sku: 'LH-1',
      name: 'Linen Hoodie',
      description: '<p>A linen hoodie.</p>',
      short_description: '<p>Light.</p>',
      brand: 'Acme',
      categories: 'Hoodies',
      tags: 'linen, summer',
      material: 'Linen',
      // No price or stock of its own: the lowest variation price, the sum of their stock.
      price: 40,
      stock: 7,
      availability: 'in_stock',
      weight: 1.2,
      weight_unit: 'lb',
      depth: 12,
      width: 10,
      height: 3,
      dimensions_unit: 'in',
    });
    expect(file.variations).toEqual([
      expect.objectContaining({
        sku: 'LH-1-SAND-M',
        color: 'Sand',
        size: 'M',
        price: 45,
        discount: 20,
        discount_from: '2026-12-01T00:00:00',
        discount_to: '2026-12-24T23:59:59',
        stock: 5,
      }),
      expect.objectContaining({ sku: 'LH-1-NAVY-L', color: 'Navy', size: 'L', price: 40, stock: 2 }),
    ]);
    expect(file.images.map((i: Json) => i.url)).toEqual([
      'https://shop.example.com/wp-content/uploads/lh-front.jpg',
      'https://shop.example.com/wp-content/uploads/lh-back.jpg',
      'https://shop.example.com/wp-content/uploads/lh-sand.jpg',
      'https://shop.example.com/wp-content/uploads/lh-navy.jpg',
    ]);
    expect(pulled).toEqual(file);
  });
});
