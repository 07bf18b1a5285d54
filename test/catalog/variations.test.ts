import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.ts';
import { expectProblem, product, waitFeed, write } from './catalog-helpers.ts';

const daemon = await useTestDaemon();
const app = daemon.app!;
const { shopPk, auth } = await daemon.shopWithKey();
const PRODUCTS = `/shops/${shopPk}/products/`;
const VARIATIONS_ALLOW = 'GET, PUT, POST, DELETE, OPTIONS';
const IMAGES_ALLOW = 'GET, POST, DELETE, OPTIONS';

/** A product with two images and two variations; returns their pks. */
async function seed(sku: string) {
  const feed = await write(app, auth, 'POST', PRODUCTS, [
    product(sku, {
      images: [`https://cdn.example/${sku}/1.jpg`, `https://cdn.example/${sku}/2.jpg`],
      variations: [{ sku: `${sku}-a`, images: [`https://cdn.example/${sku}/1.jpg`] }, { sku: `${sku}-b` }],
    }),
  ]);
  const s = feed.result.success[0]!;
  const images = (s.images as { image_pk: number }[]).map((i) => i.image_pk);
  const [va, vb] = s.variation_pks as number[];
  return { pk: s.product_pk as number, images, va: va!, vb: vb!, url: `${PRODUCTS}${String(s.product_pk)}/variations/` };
}

describe('/shops/{shop}/products/{product}/variations/', () => {
  it('GET lists the variations with the Allow header', async () => {
    const p = await seed('V1');
    const res = await app.inject({ url: p.url, headers: auth });
    expect(res.statusCode).toBe(200);
    expect(res.headers.allow).toBe(VARIATIONS_ALLOW);
    expect(res.json()).toMatchObject([
      { pk: p.va, sku: 'V1-a', images: [{ pk: p.images[0] }] },
      { pk: p.vb, sku: 'V1-b', images: [] },
    ]);
  });

  it('PUT updates by pk (seed), images as [{pk}]; an unknown pk is reported per item', async () => {
    const p = await seed('V2');
    const res = await app.inject({
      method: 'PUT',
      url: p.url,
      headers: auth,
      payload: [
        { pk: p.va, price: 20, stock: 5, color: 'green', images: [{ pk: p.images[1] }, { pk: p.images[0] }] },
        { pk: 999999, price: 1 },
      ],
    });
    expect(res.statusCode).toBe(201);
    expect(res.headers.allow).toBe(VARIATIONS_ALLOW);
    expect(res.headers.location).toMatch(/\/feeds\/[0-9a-f-]{36}\/$/);
    const feed = await write(app, auth, 'PUT', p.url, { pk: p.vb, size: 'XL' });
    expect(feed).toMatchObject({ type: 'variation_update', product_pk: p.pk, counts: { succeeded: 1 } });
    const first = await waitFeed(app, auth, res.headers.location);
    expect(first.counts).toMatchObject({ total: 2, succeeded: 1, failed: 1 });
    expect(first.result.errors).toEqual([
      {
        index: 1,
        product_pk: 999999,
        parent_pk: p.pk,
        pointer: '/1/pk',
        code: 'not_found',
        message: `Variation 999999 was not found in product ${p.pk}.`,
      },
    ]);
    const list = (await app.inject({ url: p.url, headers: auth })).json() as Record<string, unknown>[];
    expect(list).toMatchObject([
      {
        pk: p.va,
        price: 20,
        stock: 5,
        color: 'green',
        images: [
          { pk: p.images[1], position: 0 },
          { pk: p.images[0], position: 1 },
        ],
      },
      { pk: p.vb, size: 'XL', price: 10.5 },
    ]);
  });

  it('PUT with an image of another product reports it and leaves that variation unchanged', async () => {
    const p = await seed('V3');
    const q = await seed('V3X');
    const feed = await write(app, auth, 'PUT', p.url, [{ pk: p.va, stock: 9, images: [{ pk: q.images[0] }] }]);
    expect(feed.result.errors).toEqual([
      {
        index: 0,
        product_pk: p.va,
        parent_pk: p.pk,
        image_pk: q.images[0],
        sku: 'V3-a',
        pointer: '/0/images/0/pk',
        code: 'not_found',
        message: `Image ${q.images[0]} is not an image of product ${p.pk}.`,
      },
    ]);
    expect((await app.inject({ url: p.url, headers: auth })).json()).toMatchObject([
      { pk: p.va, stock: 3, images: [{ pk: p.images[0] }] },
      {},
    ]);
  });

  it('POST creates variations (defaults from the product), DELETE soft-deletes by pk', async () => {
    const p = await seed('V4');
    const created = await write(app, auth, 'POST', p.url, [{ sku: 'V4-c', stock: 1, images: ['https://cdn.example/V4/new.jpg'] }]);
    expect(created).toMatchObject({ type: 'variation_create', counts: { succeeded: 1 } });
    const vc = created.result.success[0]!.variation_pk as number;
    expect(created.result.success[0]!.images).toMatchObject([{ url: 'https://cdn.example/V4/new.jpg', position: 0 }]);
    const deleted = await write(app, auth, 'DELETE', p.url, [{ pk: p.vb }, { pk: 424242 }]);
    expect(deleted.counts).toMatchObject({ succeeded: 1, failed: 1 });
    const list = (await app.inject({ url: p.url, headers: auth })).json() as { pk: number; price: number }[];
    expect(list.map((v) => v.pk)).toEqual([p.va, vc]);
    expect(list[1]!.price).toBe(10.5);
    // The new image became a product image too.
    expect(((await app.inject({ url: `${PRODUCTS}${p.pk}/`, headers: auth })).json() as { images: unknown[] }).images).toHaveLength(3);
  });

  it("400 for a bad body, 404 for an unknown product or another shop's", async () => {
    const p = await seed('V5');
    expect(
      expectProblem(
        await app.inject({ method: 'PUT', url: p.url, headers: auth, payload: [{ price: 'x', images: [{ url: 'https://x' }] }] }),
        400,
        'validation_failed',
      ).errors!.map((e) => e.pointer),
    ).toEqual(['/0/pk', '/0/price', '/0/images/0/pk']);
    expectProblem(await app.inject({ method: 'POST', url: p.url, headers: auth, payload: [] }), 400, 'validation_failed');
    expectProblem(
      await app.inject({ method: 'PUT', url: `${PRODUCTS}999999/variations/`, headers: auth, payload: [{ pk: 1 }] }),
      404,
      'not_found',
    );
    const other = await daemon.shopWithKey();
    expectProblem(await app.inject({ method: 'PUT', url: p.url, headers: other.auth, payload: [{ pk: p.va }] }), 404, 'not_found');
  });
});

describe('/shops/{shop}/products/{product}/variations/{variation}/images/', () => {
  it('POST replaces the set (201 + Location, in order); an image of another product is reported', async () => {
    const p = await seed('I1');
    const q = await seed('I1X');
    const url = `${p.url}${p.va}/images/`;
    const res = await app.inject({
      method: 'POST',
      url,
      headers: auth,
      payload: [{ pk: p.images[1] }, { pk: q.images[0] }, { pk: p.images[0] }],
    });
    expect(res.statusCode).toBe(201);
    expect(res.headers.allow).toBe(IMAGES_ALLOW);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const feed = await waitFeed(app, auth, res.headers.location);
    expect(feed).toMatchObject({ type: 'image_replace', variation_pk: p.va, counts: { total: 3, succeeded: 2, failed: 1 } });
    expect(feed.result.errors).toEqual([
      {
        index: 1,
        product_pk: p.pk,
        image_pk: q.images[0],
        pointer: '/1/pk',
        code: 'not_found',
        message: `Image ${q.images[0]} is not an image of product ${p.pk}.`,
      },
    ]);
    const images = await app.inject({ url, headers: auth });
    expect(images.headers.allow).toBe(IMAGES_ALLOW);
    expect(images.json()).toEqual([
      { pk: p.images[1], url: 'https://cdn.example/I1/2.jpg', position: 0 },
      { pk: p.images[0], url: 'https://cdn.example/I1/1.jpg', position: 1 },
    ]);
    // One object is a set of one.
    await write(app, auth, 'POST', url, { pk: p.images[0] });
    expect((await app.inject({ url, headers: auth })).json()).toEqual([
      { pk: p.images[0], url: 'https://cdn.example/I1/1.jpg', position: 0 },
    ]);
  });

  it('DELETE detaches the images named, or all without a body', async () => {
    const p = await seed('I2');
    const url = `${p.url}${p.va}/images/`;
    await write(app, auth, 'POST', url, [{ pk: p.images[0] }, { pk: p.images[1] }]);
    const one = await write(app, auth, 'DELETE', url, [{ pk: p.images[0] }]);
    expect(one).toMatchObject({ type: 'image_delete', counts: { succeeded: 1 } });
    expect((await app.inject({ url, headers: auth })).json()).toMatchObject([{ pk: p.images[1] }]);
    const all = await write(app, auth, 'DELETE', url);
    expect(all.counts).toMatchObject({ total: 1, succeeded: 1 });
    expect((await app.inject({ url, headers: auth })).json()).toEqual([]);
    // The product keeps its images.
    expect(((await app.inject({ url: `${PRODUCTS}${p.pk}/`, headers: auth })).json() as { images: unknown[] }).images).toHaveLength(2);
  });

  it('404 for an unknown variation or product; 400 for a bad reference', async () => {
    const p = await seed('I3');
    expectProblem(
      await app.inject({ method: 'POST', url: `${p.url}999999/images/`, headers: auth, payload: [{ pk: p.images[0] }] }),
      404,
      'not_found',
    );
    expectProblem(
      await app.inject({ method: 'POST', url: `${PRODUCTS}999999/variations/${p.va}/images/`, headers: auth, payload: [{ pk: 1 }] }),
      404,
      'not_found',
    );
    expectProblem(await app.inject({ url: `${p.url}999999/images/`, headers: auth }), 404, 'not_found');
    expect(
      expectProblem(
        await app.inject({ method: 'POST', url: `${p.url}${p.va}/images/`, headers: auth, payload: [{ pk: 'one' }, { url: 'https://x' }] }),
        400,
        'validation_failed',
      ).errors!.map((e) => [e.pointer, e.code]),
    ).toEqual([
      ['/0/pk', 'invalid_type'],
      ['/1/pk', 'required'],
    ]);
  });

  it.each([
    ['variations', VARIATIONS_ALLOW, 'PATCH'],
    ['images', IMAGES_ALLOW, 'PUT'],
  ])('OPTIONS and 405 on %s', async (which, allow, method) => {
    const p = await seed(`O-${which}`);
    const url = which === 'variations' ? p.url : `${p.url}${p.va}/images/`;
    const options = await app.inject({ method: 'OPTIONS', url, headers: auth });
    expect([options.statusCode, options.headers.allow]).toEqual([204, allow]);
    const res = await app.inject({ method: method as 'PUT', url, headers: auth, payload: [] });
    expectProblem(res, 405, 'method_not_allowed');
    expect(res.headers.allow).toBe(allow);
  });
});

describe('every catalog write answers 201 with Location, Content-Type, Allow and the feed', () => {
  it('on each write endpoint', async () => {
    const p = await seed('H1');
    const images = `${p.url}${p.va}/images/`;
    const cases: [string, string, unknown, string, string][] = [
      ['POST', PRODUCTS, [product('H1-new')], 'GET, POST, PUT, DELETE, OPTIONS', 'product_create'],
      ['PUT', PRODUCTS, [{ sku: 'H1', stock: 1 }], 'GET, POST, PUT, DELETE, OPTIONS', 'product_update'],
      ['DELETE', PRODUCTS, [{ sku: 'H1-new' }], 'GET, POST, PUT, DELETE, OPTIONS', 'product_delete'],
      ['PUT', p.url, [{ pk: p.va, stock: 2 }], VARIATIONS_ALLOW, 'variation_update'],
      ['POST', p.url, [{ sku: 'H1-c' }], VARIATIONS_ALLOW, 'variation_create'],
      ['DELETE', p.url, [{ pk: p.vb }], VARIATIONS_ALLOW, 'variation_delete'],
      ['POST', images, [{ pk: p.images[0] }], IMAGES_ALLOW, 'image_replace'],
      ['DELETE', images, [{ pk: p.images[0] }], IMAGES_ALLOW, 'image_delete'],
    ];
    for (const [method, url, payload, allow, type] of cases) {
      const res = await app.inject({ method: method as 'POST', url, headers: auth, payload: payload as object });
      expect([method, url, res.statusCode, res.headers.allow]).toEqual([method, url, 201, allow]);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      const feed = res.json() as { pk: string; type: string; url: string; status: string };
      expect(res.headers.location).toBe(`http://localhost:80/feeds/${feed.pk}/`);
      expect(feed).toMatchObject({ type, url: res.headers.location, status: 'Wait' });
      expect((await waitFeed(app, auth, res.headers.location)).counts.failed).toBe(0);
    }
  });
});
