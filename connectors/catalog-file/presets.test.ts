// The presets on fixture files written after each system's published export format: rows in
// any order grouped into products and variations, units, sale prices, images, skipped rows.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { FileProduct } from './map.ts';
import type { PresetOptions } from './preset-file.ts';
import { readWithPreset } from './preset-file.ts';
import type { ReportEntry } from './report.ts';
import { SummaryBuilder } from './summary.ts';
import { loadPreset, PRESET_NAMES } from './preset.ts';

const fixture = (name: string): string => path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'presets', name);

async function read(name: string, o: PresetOptions & { productModels?: string }) {
  const file = fixture(name);
  const summary = new SummaryBuilder();
  const products: FileProduct[] = [];
  const refused: ReportEntry[] = [];
  const handle = await fs.promises.open(file);
  const modelsAt = o.productModels === undefined ? null : fixture(o.productModels);
  const models = modelsAt === null ? null : await fs.promises.open(modelsAt);
  try {
    const withModels: PresetOptions =
      models === null
        ? o
        : {
            ...o,
            models: {
              file: { handle: models, size: fs.statSync(modelsAt!).size },
              format: path.extname(modelsAt!).slice(1),
              name: o.productModels!,
            },
          };
    await readWithPreset(
      { handle, size: fs.statSync(file).size },
      o.format ?? path.extname(file).slice(1),
      withModels,
      summary,
      async (b) => {
        products.push(...b.products);
        refused.push(...b.orphans);
      },
    );
  } finally {
    await handle.close();
    await models?.close();
  }
  const bySku = new Map(products.map((p) => [p.product.sku as string, p.product]));
  return { bySku, summary: summary.s, refused };
}

describe('woocommerce', () => {
  it('variations listed before their parent (by id:44 and by sku) join it; units, sale dates, images', async () => {
    const { bySku, summary, refused } = await read('woocommerce.csv', { preset: 'woocommerce' });
    expect(refused).toEqual([]);
    expect([...bySku.keys()].sort()).toEqual(['WOO-CAP', 'WOO-HOODIE']);
    const hoodie = bySku.get('WOO-HOODIE')!;
    expect(hoodie).toMatchObject({
      name: 'Hoodie',
      description: '<p>A warm hoodie.</p>',
      brand: 'Acme',
      categories: 'Clothing > Hoodies',
      weight: 1.5,
      weight_unit: 'lb',
      depth: 10,
      width: 8,
      height: 2,
      dimensions_unit: 'in',
      // No price or stock of its own: the lowest variation price, the sum of their stock.
      price: 42,
      stock: 13,
      images: ['https://shop.example/wp-content/uploads/hoodie.jpg', 'https://shop.example/wp-content/uploads/hoodie-back.jpg'],
    });
    expect(hoodie.variations).toEqual([
      expect.objectContaining({
        sku: 'WOO-HOODIE-BLUE-S',
        price: 45,
        stock: 10,
        color: 'Blue',
        size: 'S',
        images: ['https://shop.example/wp-content/uploads/hoodie-blue.jpg'],
      }),
      expect.objectContaining({ sku: 'WOO-HOODIE-RED-M', price: 42, stock: 3, color: 'Red', size: 'M' }),
    ]);
    expect(bySku.get('WOO-CAP')).toMatchObject({
      price: 20,
      discount: 20,
      discount_from: '2024-05-01T00:00:00',
      // "Date sale price ends" 2024-05-31: the sale lasts that whole day.
      discount_to: '2024-05-31T23:59:59',
      stock: 7,
      images: ['https://shop.example/wp-content/uploads/cap.jpg'],
    });
    expect(summary).toMatchObject({ rows: 4, products: 2, variations: 2, images: 5 });
    expect(summary.conversions).toMatchObject({
      integer_from_decimal: 1,
      sale_price_to_discount: 1,
      parent_price_from_variations: 1,
      parent_stock_from_variations: 1,
    });
    expect(summary.warnings.image_relative).toEqual({ count: 1, examples: ['line 5: not an address (set the option image_base_url)'] });
    expect(summary.dropped_columns).toEqual(['Type', 'Published', 'Is featured?']);
  });

  it('a variation whose parent is not in the file is refused with its reason', async () => {
    const { bySku, refused } = await read('woocommerce-orphan.csv', { preset: 'woocommerce' });
    expect([...bySku.keys()]).toEqual(['WOO-SOCK']);
    expect(refused).toEqual([
      { line: 3, sku: 'WOO-GONE-1', errors: [{ pointer: '', code: 'not_found', message: 'its parent id:99 is not in the file' }] },
    ]);
  });
});

describe('shopify', () => {
  it('rows of a Handle are one product: variants with options named on the first row, image rows, grams as kg, compare-at as discount', async () => {
    const { bySku, summary } = await read('shopify.csv', { preset: 'shopify' });
    expect([...bySku.keys()].sort()).toEqual(['MUG-1', 'shirt']);
    const shirt = bySku.get('shirt')!;
    expect(shirt).toMatchObject({ name: 'Linen Shirt', brand: 'Acme', price: 32, stock: 9 });
    expect(shirt.images).toEqual([
      'https://cdn.shopify.example/shirt-1.jpg',
      'https://cdn.shopify.example/shirt-2.jpg',
      'https://cdn.shopify.example/shirt-3.jpg',
    ]);
    expect(shirt.variations).toEqual([
      {
        sku: 'SHIRT-W-S',
        price: 40,
        discount: 25,
        stock: 5,
        color: 'White',
        size: 'S',
        images: ['https://cdn.shopify.example/shirt-white.jpg'],
      },
      { sku: 'SHIRT-W-M', price: 40, discount: 25, stock: 4, color: 'White', size: 'M' },
      { sku: 'SHIRT-B-S', price: 32, stock: 0, color: 'Blue', size: 'S', images: ['https://cdn.shopify.example/shirt-blue.jpg'] },
    ]);
    // Variant Grams: on the variation rows as kg; a "Default Title" product is a simple product of its variant's sku.
    expect(bySku.get('MUG-1')).toMatchObject({
      name: 'Coffee Mug',
      price: 9.5,
      stock: 12,
      weight: 0.35,
      weight_unit: 'kg',
      images: ['https://cdn.shopify.example/mug.jpg'],
    });
    expect(bySku.get('MUG-1')!.variations).toBeUndefined();
    expect(summary.conversions['unit:Variant Grams']).toBe(4);
  });
});

describe('magento2', () => {
  it('children listed before their configurable join it; store-view rows skipped; qty 10.0000; relative images on image_base_url', async () => {
    const { bySku, summary, refused } = await read('magento2.csv', {
      preset: 'magento2',
      image_base_url: 'https://shop.example/media/catalog/product',
    });
    expect(refused).toEqual([]);
    expect([...bySku.keys()].sort()).toEqual(['MB01', 'MB02']);
    const bag = bySku.get('MB01')!;
    expect(bag).toMatchObject({
      name: 'Joust Duffle Bag',
      price: 34,
      discount: 15,
      discount_from: '2024-05-01T00:00:00',
      // special_price_to_date 05/31/2024: the last day of the special price.
      discount_to: '2024-05-31T23:59:59',
      stock: 0,
      brand: 'Joust',
      activity: 'Gym',
    });
    expect(bag.images).toEqual([
      'https://shop.example/media/catalog/product/m/b/mb01-blue-0.jpg',
      'https://shop.example/media/catalog/product/m/b/mb01-back.jpg',
      'https://shop.example/media/catalog/product/m/b/mb01-side.jpg',
    ]);
    expect(bag.variations).toEqual([
      expect.objectContaining({ sku: 'MB01-Blue-S', price: 34, stock: 10, color: 'Blue', size: 'S' }),
      expect.objectContaining({ sku: 'MB01-Red-S', price: 36, stock: 4, color: 'Red', size: 'S' }),
    ]);
    expect(bySku.get('MB02')).toMatchObject({ stock: 25, price: 32 });
    expect(summary.skipped['store-view row (translations are not imported)']).toEqual({ count: 1, examples: ['line 5'] });
    expect(summary.conversions.integer_from_decimal).toBe(4);
    expect(summary.dropped_columns).toContain('created_at');
  });

  it('a price in another currency than the currency option refuses its row', async () => {
    const { refused } = await read('magento2-usd.csv', { preset: 'magento2', currency: 'EUR' });
    expect(refused).toEqual([
      { line: 2, sku: null, errors: [{ pointer: '', code: 'refused', message: 'price is in USD, not in EUR (option currency)' }] },
    ]);
  });
});

describe('odoo', () => {
  it('continuation lines (empty id) add to their product; description and description_sale both read, the first wins', async () => {
    const { bySku, summary } = await read('odoo.csv', { preset: 'odoo' });
    expect([...bySku.keys()].sort()).toEqual(['FURN-0007', 'FURN-0009']);
    expect(bySku.get('FURN-0007')).toEqual({
      sku: 'FURN-0007',
      name: 'Office Chair',
      price: 120,
      stock: 8,
      description: 'Ergonomic chair.',
      categories: 'All / Saleable / Office Furniture',
      weight: 12.5,
      weight_unit: 'kg',
      color: 'Black,White',
      legs: 'Steel',
    });
    // No stock in the file: left to the merge (existing products keep theirs, new ones take the default).
    expect(bySku.get('FURN-0009')).toEqual({
      sku: 'FURN-0009',
      name: 'Desk Lamp',
      price: 35.5,
      weight: 0.8,
      weight_unit: 'kg',
      categories: 'All / Saleable',
    });
    expect(summary).toMatchObject({ rows: 3, products: 2 });
    expect(summary.warnings.column_not_used).toMatchObject({ count: 1 });
  });
});

describe('google-merchant', () => {
  it('an RSS feed (g: namespace): items of one item_group_id are one product with variations; sale price, images, currency', async () => {
    const { bySku, summary } = await read('google-merchant.xml', { preset: 'google-merchant' });
    expect([...bySku.keys()].sort()).toEqual(['MUG-1', 'TSHIRT']);
    expect(bySku.get('TSHIRT')).toMatchObject({
      name: 'T-shirt red S',
      brand: 'Acme',
      price: 15,
      variations: [
        {
          sku: 'TSHIRT-RED-S',
          color: 'Red',
          size: 'S',
          // g:sale_price_effective_date "2024-05-01T08:00-0500/2024-05-31": a date alone ends at the end of that day.
          discount: 20,
          discount_from: '2024-05-01T08:00:00-0500',
          discount_to: '2024-05-31T23:59:59',
          images: ['https://shop.example/i/red.jpg', 'https://shop.example/i/red2.jpg'],
        },
        { sku: 'TSHIRT-RED-M', availability: 'out_of_stock', color: 'Red', size: 'M', images: ['https://shop.example/i/redm.jpg'] },
      ],
    });
    expect(bySku.get('MUG-1')).toMatchObject({ name: 'Mug', price: 8.5, images: ['https://shop.example/i/mug.jpg'] });
    expect(summary).toMatchObject({ rows: 3, products: 2, variations: 2, images: 4 });
  });

  it('an item that cannot be read is refused with its line; the items around it are read', async () => {
    const { bySku, refused } = await read('../google-merchant.xml', { preset: 'google-merchant' });
    expect([...bySku.keys()].sort()).toEqual(['MUG-1', 'TSHIRT-RED-S']);
    expect(refused).toEqual([expect.objectContaining({ line: 29, errors: [expect.objectContaining({ code: 'unreadable' })] })]);
  });
});

describe('akeneo (REST API page as JSON)', () => {
  it('values by locale and scope, prices as amount and currency, media by their download link', async () => {
    const { bySku, summary } = await read('../akeneo-products.json', { preset: 'akeneo' });
    // A variant product (parent jacket_brown) is a variation of its model's product, alone as it is.
    expect(bySku.get('jacket_brown')).toMatchObject({
      name: 'Brown jacket',
      price: 89.9,
      variations: [
        {
          sku: 'jacket-brown-s',
          // Without the currency option: the first of [EUR 89.90, USD 99.00]; the other is no conflict.
          price: 89.9,
          size: 's',
          images: ['https://pim.example.com/api/rest/v1/media-files/a/b/c/d/abcd_jacket.jpg/download'],
        },
      ],
    });
    expect(summary.warnings.column_not_used).toBeUndefined();
  });

  it('the currency option picks the price in its currency from the collection', async () => {
    const { bySku, refused } = await read('../akeneo-products.json', { preset: 'akeneo', currency: 'usd' });
    expect(refused.filter((r) => r.errors[0]!.code !== 'unreadable')).toEqual([]);
    expect(bySku.get('jacket_brown')).toMatchObject({ price: 99, variations: [{ sku: 'jacket-brown-s', price: 99 }] });
  });

  it('no price in the currency option: the product comes without a price, with a warning', async () => {
    const { bySku, summary, refused } = await read('../akeneo-products.json', { preset: 'akeneo', currency: 'GBP' });
    expect(refused.filter((r) => r.errors[0]!.code !== 'unreadable')).toEqual([]);
    const jacket = bySku.get('jacket_brown')!;
    expect(jacket).toMatchObject({ name: 'Brown jacket', variations: [{ sku: 'jacket-brown-s', size: 's' }] });
    expect(jacket.price).toBeUndefined();
    expect((jacket.variations as Record<string, unknown>[])[0]!.price).toBeUndefined();
    expect(summary.warnings.price_currency_missing).toEqual({
      count: 1,
      examples: ['line 9: values.price in EUR, USD, none in GBP (option currency): price left out'],
    });
  });
});

describe('akeneo product models', () => {
  it('without the model file: a product per parent code, named from its first variant', async () => {
    const { bySku } = await read('akeneo-variants.csv', { preset: 'akeneo' });
    expect([...bySku.keys()].sort()).toEqual(['ak-hoodie-blue', 'ak-hoodie-red', 'ak-sock', 'ak-tee']);
    expect(bySku.get('ak-tee')).toMatchObject({ name: 'Tee red M', price: 19.9 });
    // A model's one variant in the file stays a variation of the model's product.
    expect(bySku.get('ak-sock')).toMatchObject({ name: 'Sock S', variations: [expect.objectContaining({ sku: 'AK-SOCK-S' })] });
  });

  it('with the model file: variants of sub-models join their root model, named and described by it', async () => {
    const { bySku, summary, refused } = await read('akeneo-variants.csv', {
      preset: 'akeneo',
      productModels: 'akeneo-product-models.csv',
    });
    expect(refused).toEqual([]);
    // ak-unused has no variant in the file: no product.
    expect([...bySku.keys()].sort()).toEqual(['ak-hoodie', 'ak-sock', 'ak-tee']);
    expect(bySku.get('ak-hoodie')).toEqual({
      sku: 'ak-hoodie',
      name: 'Akeneo Hoodie',
      description: '<p>A hoodie, described by its model.</p>',
      brand: 'Acme',
      categories: 'hoodies',
      family: 'clothing',
      price: 49,
      images: ['https://pim.example/media/hoodie.jpg'],
      variations: [
        { sku: 'AK-HOOD-BLUE-M', price: 49, color: 'blue', size: 'm', images: ['https://pim.example/media/hood-blue.jpg'] },
        { sku: 'AK-HOOD-RED-L', price: 52, color: 'red', size: 'l' },
      ],
    });
    expect(bySku.get('ak-tee')).toMatchObject({ name: 'Akeneo Tee', description: '<p>Organic tee.</p>', brand: 'Acme', price: 19.9 });
    expect(bySku.get('ak-tee')!.variations).toEqual([
      expect.objectContaining({ sku: 'AK-TEE-RED-M', color: 'red' }),
      expect.objectContaining({ sku: 'AK-TEE-BLUE-M', color: 'blue' }),
    ]);
    // A parent the model file does not list: named from its first variant, and said so.
    expect(bySku.get('ak-sock')).toMatchObject({ name: 'Sock S', price: 5 });
    expect(summary.warnings.product_model_unknown).toEqual({
      count: 1,
      examples: ['line 6: ak-sock is not in akeneo-product-models.csv (named from its first variant)'],
    });
    expect(summary.conversions.named_from_product_model).toBe(2);
    expect(summary).toMatchObject({ rows: 5, products: 3, variations: 5 });
  });

  it('a REST API page of product models names the products of an API page of products', async () => {
    const { bySku } = await read('../akeneo-products.json', { preset: 'akeneo', productModels: 'akeneo-product-models.json' });
    expect(bySku.get('jacket_brown')).toMatchObject({
      name: 'Jacket',
      description: 'The jacket, described by its model.',
      brand: 'acme',
      variations: [expect.objectContaining({ sku: 'jacket-brown-s', price: 89.9, size: 's' })],
    });
  });
});

describe('akeneo (CSV export)', () => {
  it("price-<currency> columns: the first without the currency option, the option's with it", async () => {
    const plain = await read('akeneo.csv', { preset: 'akeneo' });
    expect(plain.bySku.get('ak-tee')!.variations).toEqual([
      expect.objectContaining({ sku: 'AK-TEE-BLUE-M', price: 19.9 }),
      expect.objectContaining({ sku: 'AK-TEE-RED-M', price: 21 }),
    ]);
    expect(plain.bySku.get('AK-MUG')).toMatchObject({ price: 8 });

    const usd = await read('akeneo.csv', { preset: 'akeneo', currency: 'USD' });
    expect(usd.refused).toEqual([]);
    expect(usd.bySku.get('ak-tee')).toMatchObject({ price: 21.5 });
    expect(usd.bySku.get('ak-tee')!.variations).toEqual([
      expect.objectContaining({ sku: 'AK-TEE-BLUE-M', price: 21.5 }),
      expect.objectContaining({ sku: 'AK-TEE-RED-M', price: 23 }),
    ]);
    // The mug has no USD price: it is sent without one (an existing product keeps its price).
    expect(usd.bySku.get('AK-MUG')).toMatchObject({ name: 'Akeneo Mug' });
    expect(usd.bySku.get('AK-MUG')!.price).toBeUndefined();
    expect(usd.summary.warnings.price_currency_missing).toEqual({
      count: 1,
      examples: ['line 4: price-EUR in EUR, none in USD (option currency): price left out'],
    });
  });
});

describe('preset files', () => {
  it.each(PRESET_NAMES)('%s is a valid preset, with a default stock for new products', (name) => {
    expect(loadPreset(name)).toMatchObject({ name, defaults: { stock: 0 } });
  });
});
