// catalog-file with a preset, end to end: a PIM export without stock merges into existing
// products (their stock stays), new products take the defaults (counted once), and the same
// file dropped again after an options change is read again.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.ts';
import { connectorsFile, tempDir } from '../helpers/connectors-file.ts';
import { until } from '../helpers/until.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- reports and products are checked field by field below
type Json = Record<string, any>;

const fixtures = path.resolve('connectors/catalog-file/fixtures/presets');
const inboxes = { akeneo: tempDir(), woo: tempDir(), models: tempDir(), rootModels: tempDir() };
const entry = (name: string, inbox: string, options: Record<string, unknown>) => ({
  name,
  type: 'catalog-file',
  shop_pk: 1,
  enabled: false,
  options: { inbox, settle_ms: 0, ...options },
});
const TOKEN = 'admin-token-presets-0123456789abcdef';
const daemon = await useTestDaemon({
  env: {
    WAYBILL_ADMIN_TOKEN: TOKEN,
    WAYBILL_CONNECTORS: connectorsFile([
      entry('pim', inboxes.akeneo, { preset: 'akeneo' }),
      entry('woo', inboxes.woo, { preset: 'woocommerce' }),
      entry('pim-models', inboxes.models, { preset: 'akeneo', product_models: 'models/product_models.csv' }),
      entry('pim-root-models', inboxes.rootModels, { preset: 'akeneo', product_models: 'product_models.csv' }),
    ]),
  },
});
const { auth } = await daemon.shopWithKey();
const app = daemon.app!;
const connectors = daemon.services.connectors;

const run = async (name: string) => {
  const r = await connectors.execute({ name, trigger: 'cli' });
  if (r.status !== 'done') throw new Error(`run of ${name}: ${r.status}`);
  if (r.error !== undefined) throw r.error;
  return r.run;
};
const feedDone = (pk: string) =>
  until(
    `feed ${pk}`,
    async () => {
      const res = await app.inject({ url: `/feeds/${pk}/`, headers: auth });
      const feed = res.json() as Json;
      return feed.state === 'done' || feed.state === 'failed' ? feed : undefined;
    },
    20_000,
  );
const product = async (sku: string): Promise<Json | undefined> => {
  const res = await app.inject({ url: `/shops/1/products/?sku=${encodeURIComponent(sku)}`, headers: auth });
  return (res.json() as Json[])[0];
};
const report = (inbox: string, file: string) =>
  JSON.parse(fs.readFileSync(path.join(inbox, '.done', `${file}.report.json`), 'utf8')) as Json;

describe('preset files merge into the catalog', () => {
  it('an Akeneo export without stock keeps existing stock; new products take stock 0, counted once', async () => {
    const put = await app.inject({
      method: 'POST',
      url: '/shops/1/products/',
      headers: auth,
      payload: { sku: 'AK-MUG', name: 'Old mug', price: 7, stock: 5, brand: 'Kept' },
    });
    expect(put.statusCode).toBe(201);
    await feedDone((put.json() as Json).pk);

    fs.copyFileSync(path.join(fixtures, 'akeneo.csv'), path.join(inboxes.akeneo, 'akeneo.csv'));
    const r = await run('pim');
    expect(r).toMatchObject({ outcome: 'succeeded', counts: { files_done: 1, products_sent: 2 } });
    for (const pk of r.feed_pks) expect(await feedDone(pk)).toMatchObject({ state: 'done', type: 'product_merge', counts: { failed: 0 } });

    expect(await product('AK-MUG')).toMatchObject({ name: 'Akeneo Mug', price: 8, stock: 5, brand: 'Kept', description: '<p>A mug.</p>' });
    const tee = await product('ak-tee');
    expect(tee).toMatchObject({ name: 'Akeneo Tee', price: 19.9, stock: 0 });
    expect(tee!.variations.map((v: Json) => [v.sku, v.color, v.size])).toEqual([
      ['AK-TEE-BLUE-M', 'blue', 'm'],
      ['AK-TEE-RED-M', 'red', 'm'],
    ]);

    const rep = report(inboxes.akeneo, 'akeneo.csv');
    expect(rep.summary).toMatchObject({ rows: 3, products: 2, variations: 2, images: 1, defaults: { stock: { value: 0, products: 2 } } });

    // The dashboard's connector page shows the last file's summary.
    const page = await app.inject({ url: '/admin/connectors/pim', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(page.statusCode).toBe(200);
    const card = /<div class="card" id="last-input">[\s\S]*?<\/div>/.exec(page.body)?.[0] ?? '';
    expect(card).toContain('akeneo.csv');
    expect(card).toContain('3 rows: 2 products, 2 variations, 1 images');
    expect(card).toContain('<code>stock</code>=0 for 2 products lacking it');
  });

  it('the same file dropped again after an options change is read again', async () => {
    const csv = fs.readFileSync(path.join(fixtures, 'woocommerce.csv'));
    fs.writeFileSync(path.join(inboxes.woo, 'woo.csv'), csv);
    const first = await run('woo');
    expect(first).toMatchObject({ counts: { files_done: 1, products_sent: 2 } });
    for (const pk of first.feed_pks) await feedDone(pk);
    expect(await product('WOO-HOODIE')).toMatchObject({ price: 42, stock: 13, weight_unit: 'lb' });

    fs.writeFileSync(path.join(inboxes.woo, 'woo.csv'), csv);
    expect(await run('woo')).toMatchObject({ counts: { files_skipped: 1 } });

    const config = JSON.parse(fs.readFileSync(connectors.file, 'utf8')) as { connectors: Json[] };
    config.connectors.find((c) => c.name === 'woo')!.options.image_base_url = 'https://shop.example/';
    fs.writeFileSync(connectors.file, JSON.stringify(config));
    connectors.reload();
    fs.writeFileSync(path.join(inboxes.woo, 'woo.csv'), csv);
    const again = await run('woo');
    expect(again.counts.files_skipped).toBeUndefined();
    expect(again.counts).toMatchObject({ files_done: 1 });
    // Read with the new options: the cap's relative image is now an address.
    for (const pk of again.feed_pks) await feedDone(pk);
    expect((await product('WOO-CAP'))!.images.map((i: Json) => i.url)).toEqual([
      'https://shop.example/wp-content/uploads/cap.jpg',
      'https://shop.example/not%20an%20address',
    ]);
  });

  it('Akeneo product models: a model file in the inbox names the products of its variants; a change of it reads the products again', async () => {
    const models = path.join(inboxes.models, 'models');
    fs.mkdirSync(models);
    fs.copyFileSync(path.join(fixtures, 'akeneo-product-models.csv'), path.join(models, 'product_models.csv'));
    fs.copyFileSync(path.join(fixtures, 'akeneo-variants.csv'), path.join(inboxes.models, 'variants.csv'));
    const r = await run('pim-models');
    expect(r).toMatchObject({ outcome: 'succeeded', counts: { files_done: 1, products_sent: 3 } });
    for (const pk of r.feed_pks) expect(await feedDone(pk)).toMatchObject({ state: 'done', counts: { failed: 0 } });

    const hoodie = await product('ak-hoodie');
    expect(hoodie).toMatchObject({
      name: 'Akeneo Hoodie',
      description: '<p>A hoodie, described by its model.</p>',
      brand: 'Acme',
      price: 49,
    });
    // The model's image first, then the variations' (the product lists them all).
    expect(hoodie!.images.map((i: Json) => i.url)).toEqual([
      'https://pim.example/media/hoodie.jpg',
      'https://pim.example/media/hood-blue.jpg',
    ]);
    expect(hoodie!.variations.map((v: Json) => [v.sku, v.color, v.size, v.price])).toEqual([
      ['AK-HOOD-BLUE-M', 'blue', 'm', 49],
      ['AK-HOOD-RED-L', 'red', 'l', 52],
    ]);
    expect(await product('ak-tee')).toMatchObject({ name: 'Akeneo Tee' });
    // Sub-models are no products of their own; the model file itself was not imported.
    expect(await product('ak-hoodie-blue')).toBeUndefined();
    expect(fs.readdirSync(path.join(inboxes.models, 'models'))).toEqual(['product_models.csv']);
    expect(report(inboxes.models, 'variants.csv').summary).toMatchObject({
      conversions: { named_from_product_model: 2 },
      warnings: { product_model_unknown: { count: 1 } },
    });

    // The same product file again: nothing to do; again after the models changed: read again.
    fs.copyFileSync(path.join(fixtures, 'akeneo-variants.csv'), path.join(inboxes.models, 'variants.csv'));
    expect(await run('pim-models')).toMatchObject({ counts: { files_skipped: 1 } });
    const renamed = fs.readFileSync(path.join(models, 'product_models.csv'), 'utf8').replace('Akeneo Hoodie', 'Winter Hoodie');
    fs.writeFileSync(path.join(models, 'product_models.csv'), renamed);
    fs.copyFileSync(path.join(fixtures, 'akeneo-variants.csv'), path.join(inboxes.models, 'variants.csv'));
    const again = await run('pim-models');
    expect(again.counts).toMatchObject({ files_done: 1 });
    for (const pk of again.feed_pks) await feedDone(pk);
    expect(await product('ak-hoodie')).toMatchObject({ name: 'Winter Hoodie' });
  });

  it('a product model file that is a link is not followed: the product file is refused with the reason', async () => {
    const outside = path.join(tempDir(), 'models.csv');
    fs.copyFileSync(path.join(fixtures, 'akeneo-product-models.csv'), outside);
    fs.rmSync(path.join(inboxes.models, 'models', 'product_models.csv'));
    fs.symlinkSync(outside, path.join(inboxes.models, 'models', 'product_models.csv'));
    fs.copyFileSync(path.join(fixtures, 'akeneo.csv'), path.join(inboxes.models, 'other.csv'));
    const r = await run('pim-models');
    expect(r.counts).toMatchObject({ files_error: 1 });
    expect(JSON.parse(fs.readFileSync(path.join(inboxes.models, '.error', 'other.csv.report.json'), 'utf8'))).toMatchObject({
      outcome: 'error',
      reason:
        'The product model file models/product_models.csv (option product_models) is not read: The file is a symbolic link; only regular files in the inbox are read.',
    });
  });

  it('a product model file in the inbox itself is read with the product files, never imported as one', async () => {
    fs.copyFileSync(path.join(fixtures, 'akeneo-product-models.csv'), path.join(inboxes.rootModels, 'product_models.csv'));
    fs.copyFileSync(path.join(fixtures, 'akeneo-variants.csv'), path.join(inboxes.rootModels, 'variants.csv'));
    const r = await run('pim-root-models');
    expect(r.counts).toMatchObject({ files_done: 1 });
    expect(r.counts.files_error).toBeUndefined();
    expect(fs.readdirSync(inboxes.rootModels).filter((f) => !f.startsWith('.'))).toEqual(['product_models.csv']);
    expect(report(inboxes.rootModels, 'variants.csv').summary.conversions).toMatchObject({ named_from_product_model: 2 });
  });
});
