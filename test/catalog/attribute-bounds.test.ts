// Category attributes are bounded (one value 65,536 bytes of JSON, an item's together 262,144),
// a 400 naming the limit; a products list is streamed a batch at a time, so large products
// never make a page's reply one string in memory. An attribute one edit away from a documented
// field (`colour`, `stok`) is kept, with a warning naming the field it was probably meant to be.
import { describe, expect, it } from 'vitest';
import { MAX_ATTRIBUTE_BYTES, MAX_ATTRIBUTES_BYTES } from '../../src/catalog/field-catalog.ts';
import { useTestDaemon } from '../helpers/daemon.ts';
import { expectProblem, pageOf, product, write } from './catalog-helpers.ts';

const daemon = await useTestDaemon();
const app = daemon.app!;
const { shopPk, auth } = await daemon.shopWithKey();
const headers = { ...auth, 'content-type': 'application/json' };
const PRODUCTS = `/shops/${shopPk}/products/`;
const post = (payload: unknown) => app.inject({ method: 'POST', url: PRODUCTS, headers, payload: payload as object });

describe('attribute sizes', () => {
  it('a value over 65,536 bytes of JSON is a 400 at its pointer naming the limit; one at the limit is stored', async () => {
    const over = 'x'.repeat(MAX_ATTRIBUTE_BYTES - 1); // 65,537 bytes with its quotes
    const res = await post([product('BIG-0', { description_html: over }), product('BIG-1', { specs: { text: 'é'.repeat(33_000) } })]);
    const problem = expectProblem(res, 400, 'validation_failed');
    expect(problem.errors).toEqual([
      {
        pointer: '/0/description_html',
        code: 'too_large',
        message: "is 65,537 bytes as JSON; a category attribute's value takes at most 65,536",
      },
      {
        pointer: '/1/specs',
        code: 'too_large',
        message: expect.stringMatching(/^is 66,0\d\d bytes as JSON; .* at most 65,536$/) as string,
      },
    ]);
    const feed = await write(app, auth, 'POST', PRODUCTS, [product('BIG-2', { description_html: 'x'.repeat(MAX_ATTRIBUTE_BYTES - 2) })]);
    expect(feed).toMatchObject({ state: 'done', counts: { succeeded: 1 } });
  });

  it("an item's attributes together (its variations' included) over 262,144 bytes: a 400 at the item naming the limit", async () => {
    const attrs = (n: number, prefix: string) =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, 'v'.repeat(60_000)]));
    const res = await post([
      product('SUM-0', attrs(5, 'a')),
      product('SUM-1', { ...attrs(3, 'a'), variations: [{ sku: 'SUM-1-V', ...attrs(2, 'b') }] }),
    ]);
    const problem = expectProblem(res, 400, 'validation_failed');
    expect(problem.errors?.map((e) => [e.pointer, e.code])).toEqual([
      ['/0', 'attributes_too_large'],
      ['/1', 'attributes_too_large'],
    ]);
    expect(problem.errors?.[0]?.message).toMatch(/^its category attributes take 300,\d{3} bytes as JSON .*at most 262,144$/);
    expect(MAX_ATTRIBUTES_BYTES).toBe(262_144);
    // PUT is bound alike.
    const put = await app.inject({ method: 'PUT', url: PRODUCTS, headers, payload: { sku: 'BIG-2', ...attrs(5, 'c') } });
    expect(expectProblem(put, 400, 'validation_failed').errors?.map((e) => [e.pointer, e.code])).toEqual([['', 'attributes_too_large']]);
  });
});

describe('products list', () => {
  it('a page of large products is streamed whole: every product, in order, with the paging headers', async () => {
    const big = (i: number) =>
      product(
        `LIST-${String(i).padStart(2, '0')}`,
        Object.fromEntries(Array.from({ length: 3 }, (_, k) => [`attr${k}`, String.fromCharCode(65 + (i % 26)).repeat(60_000)])),
      );
    for (let i = 0; i < 60; i += 20)
      await write(
        app,
        auth,
        'POST',
        PRODUCTS,
        Array.from({ length: 20 }, (_, k) => big(i + k)),
      );
    const res = await app.inject({ url: `${PRODUCTS}?page_size=55`, headers: auth });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const page = pageOf(res);
    expect(page.items).toHaveLength(55);
    expect(page.total).toBe(61);
    const pks = page.items.map((p) => p.pk as number);
    expect(pks).toEqual([...pks].sort((a, b) => a - b));
    expect(page.items.find((p) => p.sku === 'LIST-07')).toMatchObject({ attr0: 'H'.repeat(60_000), images: [], variations: [] });
    const last = pageOf(await app.inject({ url: `${PRODUCTS}?page_size=55&page=2`, headers: auth }));
    expect(last.items.map((p) => p.sku)).toEqual(['LIST-54', 'LIST-55', 'LIST-56', 'LIST-57', 'LIST-58', 'LIST-59']);
    // An empty page is still an array.
    expect(pageOf(await app.inject({ url: `${PRODUCTS}?page_size=55&page=9`, headers: auth })).items).toEqual([]);
  });
});

describe('near-miss field names', () => {
  it('`colour` is kept as an attribute with a warning naming color; a missing stock beside `stok` says did you mean', async () => {
    const feed = await write(app, auth, 'POST', PRODUCTS, [product('NEAR-1', { colour: 'red', model: 'X1', Brand: 'Acme' })]);
    expect(feed).toMatchObject({ state: 'done', counts: { succeeded: 1, warnings: 2 } });
    const item = (feed.result as unknown as { success: { warning: string[] }[] }).success[0]!;
    expect(item.warning).toEqual([
      '/0/colour: stored as the category attribute "colour"; did you mean color?',
      '/0/Brand: stored as the category attribute "Brand"; did you mean brand?',
    ]);
    const { stock: _s, ...noStock } = product('NEAR-2');
    const res = await post({ ...noStock, stok: 4 });
    expect(expectProblem(res, 400, 'validation_failed').errors).toEqual([
      { pointer: '/stock', code: 'required', message: 'is required (did you mean stock? "stok" was sent)' },
    ]);
  });
});

describe('required text', () => {
  it('a sku or name of only white space is missing: 400 required, on create, update and delete alike', async () => {
    const res = await post([product('   '), product('OK-SKU', { name: ' \t ' }), product('OK-2', { variations: [{ sku: '  ' }] })]);
    expect(expectProblem(res, 400, 'validation_failed').errors).toEqual([
      { pointer: '/0/sku', code: 'required', message: 'is required (only white space was sent)' },
      { pointer: '/1/name', code: 'required', message: 'is required (only white space was sent)' },
      { pointer: '/2/variations/0/sku', code: 'required', message: 'is required (only white space was sent)' },
    ]);
    const del = await app.inject({ method: 'DELETE', url: PRODUCTS, headers, payload: [{ sku: ' ' }] });
    expect(expectProblem(del, 400, 'validation_failed').errors?.map((e) => [e.pointer, e.code])).toEqual([['/0/sku', 'required']]);
  });
});
