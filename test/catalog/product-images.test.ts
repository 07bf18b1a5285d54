// A product's images as a resource: GET (a bare array with Link and X-Total-Count), POST (add
// after the ones it has), PUT (reorder, 0-based), DELETE (remove, and detach from variations),
// GET of one image. Writes are feeds whose reports have one item per image.
import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.ts';
import { expectProblem, product, waitFeed, write } from './catalog-helpers.ts';

const daemon = await useTestDaemon();
const app = daemon.app!;
const { shopPk, auth } = await daemon.shopWithKey();
const PRODUCTS = `/shops/${shopPk}/products/`;
const ALLOW = 'GET, POST, PUT, DELETE, OPTIONS';

type Image = { pk: number; url: string; position: number };
const cdn = (sku: string, n: number | string) => `https://cdn.example/${sku}/${n}.jpg`;

async function seed(sku: string) {
  const feed = await write(
    app,
    auth,
    'POST',
    PRODUCTS,
    product(sku, {
      images: [cdn(sku, 1), cdn(sku, 2)],
      variations: [{ sku: `${sku}-a`, images: [cdn(sku, 1), cdn(sku, 2)] }],
    }),
  );
  const s = feed.result.success[0]!;
  const url = `${PRODUCTS}${String(s.product_pk)}/images/`;
  return { pk: s.product_pk as number, va: (s.variation_pks as number[])[0]!, url };
}
const imagesOf = async (url: string): Promise<Image[]> => (await app.inject({ url, headers: auth })).json() as Image[];

describe('/shops/{shop}/products/{product}/images/', () => {
  it('GET lists [{pk,url,position}] as a bare array with paging headers and the Allow header', async () => {
    const p = await seed('PI1');
    const res = await app.inject({ url: `${p.url}?page_size=1&page=2`, headers: auth });
    expect([res.statusCode, res.headers.allow, res.headers['x-total-count']]).toEqual([200, ALLOW, '2']);
    expect(res.json()).toEqual([{ pk: expect.any(Number), url: cdn('PI1', 2), position: 1 }]);
    expect(String(res.headers.link)).toContain('rel="prev"');
    const all = await imagesOf(p.url);
    const one = await app.inject({ url: `${p.url}${all[0]!.pk}/`, headers: auth });
    expect([one.statusCode, one.headers.allow]).toEqual([200, 'GET, OPTIONS']);
    expect(one.json()).toEqual(all[0]);
    expectProblem(await app.inject({ url: `${p.url}999999/`, headers: auth }), 404, 'not_found');
  });

  it('POST adds {url} objects and address strings after the images the product has; the report has one item per image', async () => {
    const p = await seed('PI2');
    const res = await app.inject({
      method: 'POST',
      url: p.url,
      headers: auth,
      payload: [cdn('PI2', 3), { url: cdn('PI2', 4) }, cdn('PI2', 1)],
    });
    expect([res.statusCode, res.headers.allow]).toEqual([201, ALLOW]);
    const feed = await write(app, auth, 'POST', p.url, [cdn('PI2', 3), { url: cdn('PI2', 4) }, cdn('PI2', 1)]);
    expect(feed).toMatchObject({
      type: 'product_image_add',
      status: 'Complete',
      product_pk: p.pk,
      counts: { total: 3, succeeded: 3, failed: 0 },
    });
    const images = await imagesOf(p.url);
    expect(images.map((i) => [i.url, i.position])).toEqual([
      [cdn('PI2', 1), 0],
      [cdn('PI2', 2), 1],
      [cdn('PI2', 3), 2],
      [cdn('PI2', 4), 3],
    ]);
    expect(feed.result.success).toEqual([
      {
        index: 0,
        sku: 'PI2',
        product_pk: p.pk,
        image_pk: images[2]!.pk,
        url_source: cdn('PI2', 3),
        position: 2,
        warning: [],
        warnings: [],
      },
      {
        index: 1,
        sku: 'PI2',
        product_pk: p.pk,
        image_pk: images[3]!.pk,
        url_source: cdn('PI2', 4),
        position: 3,
        warning: [],
        warnings: [],
      },
      // An address the product has: reported with its image, not added twice.
      {
        index: 2,
        sku: 'PI2',
        product_pk: p.pk,
        image_pk: images[0]!.pk,
        url_source: cdn('PI2', 1),
        position: 0,
        warning: [],
        warnings: [],
      },
    ]);
    // One address alone is one image.
    const alone = await app.inject({
      method: 'POST',
      url: p.url,
      headers: { ...auth, 'content-type': 'application/json' },
      payload: JSON.stringify(cdn('PI2', 5)),
    });
    expect(alone.statusCode).toBe(201);
    expect(await waitFeed(app, auth, alone.headers.location)).toMatchObject({
      counts: { succeeded: 1 },
      result: { success: [{ url_source: cdn('PI2', 5), position: 4 }] },
    });
  });

  it('PUT moves images to 0-based positions, the others keep their order; an unknown pk is an error with image_pk', async () => {
    const p = await seed('PI3');
    await write(app, auth, 'POST', p.url, [cdn('PI3', 3), cdn('PI3', 4)]);
    const [i1, i2, i3, i4] = await imagesOf(p.url);
    const feed = await write(app, auth, 'PUT', p.url, [
      { pk: i4!.pk, position: 0 },
      { pk: 999999, position: 1 },
    ]);
    expect(feed).toMatchObject({ type: 'product_image_reorder', counts: { succeeded: 1, failed: 1 } });
    expect(feed.result.success).toEqual([
      { index: 0, sku: 'PI3', product_pk: p.pk, image_pk: i4!.pk, url_source: cdn('PI3', 4), position: 0, warning: [], warnings: [] },
    ]);
    expect(feed.result.errors).toEqual([
      {
        index: 1,
        sku: 'PI3',
        product_pk: p.pk,
        image_pk: 999999,
        pointer: '/1/pk',
        code: 'not_found',
        message: `Image 999999 is not an image of product ${p.pk}.`,
      },
    ]);
    expect((await imagesOf(p.url)).map((i) => [i.pk, i.position])).toEqual([
      [i4!.pk, 0],
      [i1!.pk, 1],
      [i2!.pk, 2],
      [i3!.pk, 3],
    ]);
    // A full order, as one object per image.
    await write(app, auth, 'PUT', p.url, [
      { pk: i1!.pk, position: 3 },
      { pk: i2!.pk, position: 2 },
      { pk: i3!.pk, position: 1 },
      { pk: i4!.pk, position: 0 },
    ]);
    expect((await imagesOf(p.url)).map((i) => i.pk)).toEqual([i4!.pk, i3!.pk, i2!.pk, i1!.pk]);
  });

  it('DELETE removes images from the product and its variations; the rest close up', async () => {
    const p = await seed('PI4');
    const [i1, i2] = await imagesOf(p.url);
    const feed = await write(app, auth, 'DELETE', p.url, { pk: i1!.pk });
    expect(feed).toMatchObject({ type: 'product_image_delete', counts: { succeeded: 1, failed: 0 } });
    expect(feed.result.success).toEqual([
      { index: 0, sku: 'PI4', product_pk: p.pk, image_pk: i1!.pk, url_source: cdn('PI4', 1), position: 0, warning: [], warnings: [] },
    ]);
    expect(await imagesOf(p.url)).toEqual([{ pk: i2!.pk, url: cdn('PI4', 2), position: 0 }]);
    const variation = (await app.inject({ url: `${PRODUCTS}${p.pk}/variations/${p.va}/`, headers: auth })).json() as { images: Image[] };
    expect(variation.images).toEqual([{ pk: i2!.pk, url: cdn('PI4', 2), position: 0 }]);
    const again = await write(app, auth, 'DELETE', p.url, [{ pk: i1!.pk }]);
    expect(again.result.errors).toEqual([expect.objectContaining({ product_pk: p.pk, image_pk: i1!.pk, code: 'not_found' })]);
  });

  it('400 for a bad body, 404 for an unknown product, OPTIONS and 405 with the Allow header', async () => {
    const p = await seed('PI5');
    expect(
      expectProblem(
        await app.inject({ method: 'POST', url: p.url, headers: auth, payload: ['ftp://x', { href: 'https://x' }] }),
        400,
        'validation_failed',
      ).errors!.map((e) => e.pointer),
    ).toEqual(['/0', '/1']);
    expect(
      expectProblem(
        await app.inject({ method: 'PUT', url: p.url, headers: auth, payload: [{ pk: 1, position: -1 }, { pk: 1 }] }),
        400,
        'validation_failed',
      ).errors!.map((e) => e.pointer),
    ).toEqual(['/0/position', '/1/position']);
    expectProblem(
      await app.inject({ method: 'POST', url: `${PRODUCTS}999999/images/`, headers: auth, payload: [cdn('x', 1)] }),
      404,
      'not_found',
    );
    const options = await app.inject({ method: 'OPTIONS', url: p.url, headers: auth });
    expect([options.statusCode, options.headers.allow]).toEqual([204, ALLOW]);
    const patch = await app.inject({ method: 'PATCH', url: p.url, headers: auth, payload: [] });
    expectProblem(patch, 405, 'method_not_allowed');
    expect(patch.headers.allow).toBe(ALLOW);
  });
});
