// Feed reports as the real clients read them: every success item has sku and product_pk (in a
// variation feed the variation's pk, its product in parent_pk); `warning` is a list of strings
// beside the structured `warnings`; images carry url_source as sent; image feeds report one item
// per image; errors carry message, sku/product_pk and image_pk. Reports stored in the older
// shape read the same way.
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.ts';
import { pathOf, product, waitFeed, write } from '../catalog/catalog-helpers.ts';

const daemon = await useTestDaemon();
const app = daemon.app!;
const { shopPk, auth } = await daemon.shopWithKey();
const PRODUCTS = `/shops/${shopPk}/products/`;
const sql = new pg.Pool({ connectionString: daemon.database.url, max: 2 });
afterAll(() => sql.end());
const cdn = (n: string) => `https://cdn.example/reports/${n}.jpg`;

describe('a product feed', () => {
  it('pk is the last segment of Location ([A-Za-z0-9_-]+); Wait until finished, then Complete; images with url_source', async () => {
    const res = await app.inject({
      method: 'POST',
      url: PRODUCTS,
      headers: auth,
      payload: [product('R-1', { images: [cdn('a'), { url: cdn('b') }] })],
    });
    expect(res.statusCode).toBe(201);
    const pk = pathOf(res.headers.location).split('/').filter(Boolean).pop()!;
    expect(pk).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(res.json()).toMatchObject({ pk, status: 'Wait' });
    const feed = await waitFeed(app, auth, res.headers.location);
    expect(feed).toMatchObject({ pk, status: 'Complete' });
    expect(feed.result.success).toEqual([
      {
        index: 0,
        sku: 'R-1',
        product_pk: expect.any(Number),
        variation_pks: [],
        warning: [],
        warnings: [],
        images: [
          { image_pk: expect.any(Number), url: cdn('a'), url_source: cdn('a'), position: 0 },
          { image_pk: expect.any(Number), url: cdn('b'), url_source: cdn('b'), position: 1 },
        ],
      },
    ]);
  });
});

describe('a variation feed', () => {
  it('reports the variation as product_pk and its product as parent_pk, with sku, images and errors', async () => {
    const p = (await write(app, auth, 'POST', PRODUCTS, product('RV', { images: [cdn('v1'), cdn('v2')], variations: [{ sku: 'RV-a' }] })))
      .result.success[0]!;
    const productPk = p.product_pk as number;
    const [va] = p.variation_pks as number[];
    const [i1, i2] = (p.images as { image_pk: number }[]).map((i) => i.image_pk);
    const url = `${PRODUCTS}${productPk}/variations/`;
    const created = await write(app, auth, 'POST', url, [{ sku: 'RV-b', images: [{ url: cdn('v2') }] }]);
    const vb = created.result.success[0]!.product_pk as number;
    expect(created.result.success).toEqual([
      {
        index: 0,
        sku: 'RV-b',
        product_pk: vb,
        parent_pk: productPk,
        variation_pk: vb,
        warning: [],
        warnings: [],
        images: [{ image_pk: i2, url: cdn('v2'), url_source: cdn('v2'), position: 0 }],
      },
    ]);
    expect((await app.inject({ url: `${url}${vb}/`, headers: auth })).json()).toMatchObject({ pk: vb, sku: 'RV-b', product_pk: productPk });
    const updated = await write(app, auth, 'PUT', url, [
      { pk: va, stock: 4, images: [{ pk: i1 }] },
      { pk: 999999, stock: 1 },
      { pk: vb, images: [{ pk: 888888 }] },
    ]);
    expect(updated.result.success).toEqual([
      {
        index: 0,
        sku: 'RV-a',
        product_pk: va,
        parent_pk: productPk,
        variation_pk: va,
        warning: [],
        warnings: [],
        images: [{ image_pk: i1, url: cdn('v1'), url_source: cdn('v1'), position: 0 }],
      },
    ]);
    expect(updated.result.errors).toEqual([
      {
        index: 1,
        product_pk: 999999,
        parent_pk: productPk,
        pointer: '/1/pk',
        code: 'not_found',
        message: `Variation 999999 was not found in product ${productPk}.`,
      },
      {
        index: 2,
        sku: 'RV-b',
        product_pk: vb,
        parent_pk: productPk,
        image_pk: 888888,
        pointer: '/2/images/0/pk',
        code: 'not_found',
        message: `Image 888888 is not an image of product ${productPk}.`,
      },
    ]);
    const deleted = await write(app, auth, 'DELETE', url, { pk: vb });
    expect(deleted.result.success).toEqual([
      { index: 0, sku: 'RV-b', product_pk: vb, parent_pk: productPk, variation_pk: vb, warning: [], warnings: [] },
    ]);
  });
});

describe('a variation image feed', () => {
  it('has one success item per image {product_pk, image_pk, url_source, position} and errors with image_pk', async () => {
    const p = (await write(app, auth, 'POST', PRODUCTS, product('RI', { images: [cdn('i1'), cdn('i2')], variations: [{ sku: 'RI-a' }] })))
      .result.success[0]!;
    const productPk = p.product_pk as number;
    const [va] = p.variation_pks as number[];
    const [i1, i2] = (p.images as { image_pk: number }[]).map((i) => i.image_pk);
    const url = `${PRODUCTS}${productPk}/variations/${va}/images/`;
    const replaced = await write(app, auth, 'POST', url, [{ pk: i2 }, { pk: 777777 }, { pk: i1 }]);
    expect(replaced.result.success).toEqual([
      {
        index: 0,
        sku: 'RI-a',
        product_pk: productPk,
        variation_pk: va,
        image_pk: i2,
        url_source: cdn('i2'),
        position: 0,
        warning: [],
        warnings: [],
      },
      {
        index: 2,
        sku: 'RI-a',
        product_pk: productPk,
        variation_pk: va,
        image_pk: i1,
        url_source: cdn('i1'),
        position: 1,
        warning: [],
        warnings: [],
      },
    ]);
    expect(replaced.result.errors).toEqual([
      {
        index: 1,
        product_pk: productPk,
        image_pk: 777777,
        pointer: '/1/pk',
        code: 'not_found',
        message: `Image 777777 is not an image of product ${productPk}.`,
      },
    ]);
    const detached = await write(app, auth, 'DELETE', url, [{ pk: i1 }]);
    expect(detached.result.success).toEqual([
      {
        index: 0,
        sku: 'RI-a',
        product_pk: productPk,
        variation_pk: va,
        image_pk: i1,
        url_source: cdn('i1'),
        position: 1,
        warning: [],
        warnings: [],
      },
    ]);
  });
});

describe('reports stored before this shape', () => {
  it('read in the current shape: warnings as strings, url_source, the variation as product_pk, errors without pk', async () => {
    const p = (await write(app, auth, 'POST', PRODUCTS, product('OLD', { variations: [{ sku: 'OLD-a' }] }))).result.success[0]!;
    const productPk = p.product_pk as number;
    const [va] = p.variation_pks as number[];
    // Rows as the previous version wrote them.
    const insert = async (type: string, success: unknown[], errors: unknown[], variationPk: number | null = null): Promise<string> => {
      const pk = (
        await sql.query(
          `insert into feeds (pk, shop_pk, type, state, source, product_pk, variation_pk, base_url, total, processed, succeeded, failed, finished_at)
         values (gen_random_uuid(), $1, $2, 'done', 'key:old', $3, $4, 'http://localhost', 2, 2, 1, 1, now()) returning pk`,
          [shopPk, type, type === 'product_create' ? null : productPk, variationPk],
        )
      ).rows[0].pk as string;
      await sql.query('insert into feed_results (feed_pk, "offset", success, errors) values ($1, 0, $2, $3)', [
        pk,
        JSON.stringify(success),
        JSON.stringify(errors),
      ]);
      return pk;
    };
    const read = async (pk: string) =>
      (await app.inject({ url: `/feeds/${pk}/`, headers: auth })).json() as { result: { success: unknown[]; errors: unknown[] } };

    const products = await insert(
      'product_create',
      [
        {
          index: 0,
          sku: 'OLD',
          product_pk: productPk,
          variation_pks: [va],
          images: [{ image_pk: 3, url: cdn('o'), position: 0 }],
          warning: [{ pointer: '/0/x', message: 'unknown field, ignored' }],
        },
      ],
      [{ index: 1, sku: 'GONE', pk: 41, pointer: '/1/pk', code: 'not_found', message: 'Product pk 41 was not found in this shop.' }],
    );
    expect((await read(products)).result).toEqual({
      success: [
        {
          index: 0,
          sku: 'OLD',
          product_pk: productPk,
          variation_pks: [va],
          images: [{ image_pk: 3, url: cdn('o'), url_source: cdn('o'), position: 0 }],
          warning: ['/0/x: unknown field, ignored'],
          warnings: [{ pointer: '/0/x', code: 'unknown_field', message: 'unknown field, ignored' }],
        },
      ],
      errors: [
        {
          index: 1,
          sku: 'GONE',
          product_pk: 41,
          pointer: '/1/pk',
          code: 'not_found',
          message: 'Product pk 41 was not found in this shop.',
        },
      ],
      criticals: [],
    });

    const variations = await insert(
      'variation_update',
      [{ index: 0, sku: 'OLD-a', product_pk: productPk, variation_pk: va, images: [], warning: [] }],
      [{ index: 1, pk: 999, pointer: '/1/pk', code: 'not_found', message: 'Variation 999 was not found.' }],
    );
    expect((await read(variations)).result).toMatchObject({
      success: [{ sku: 'OLD-a', product_pk: va, parent_pk: productPk, variation_pk: va, warning: [], warnings: [] }],
      errors: [{ index: 1, product_pk: 999, parent_pk: productPk, message: 'Variation 999 was not found.' }],
    });

    const images = await insert(
      'image_replace',
      [{ index: 0, product_pk: productPk, variation_pk: va, image_pk: 5, url: cdn('o'), position: 0, warning: [] }],
      [{ index: 1, pk: 6, pointer: '/1/pk', code: 'not_found', message: 'Image 6 is not an image of product.' }],
      va,
    );
    const read3 = await read(images);
    expect(read3.result).toMatchObject({
      success: [{ product_pk: productPk, image_pk: 5, url_source: cdn('o'), position: 0, warning: [], warnings: [] }],
      errors: [{ product_pk: productPk, image_pk: 6, message: 'Image 6 is not an image of product.' }],
    });
    expect(read3.result.errors[0]).not.toHaveProperty('pk');
  });
});
