// The table of feed operations (src/catalog/apply/operations.ts) drives every reader: each entry
// is complete (scope, item schema, presenter, chunk size, apply function), and the API's feed
// type, the OpenAPI document and the admin's type filter list exactly its names.
import { describe, expect, it } from 'vitest';
import { CHUNK_SIZE, chunkSizeOf, FEED_OPERATIONS, FEED_TYPES } from '../../src/catalog/apply/operations.ts';
import { validateItems } from '../../src/catalog/product-validation.ts';
import { feedsBody } from '../../src/admin/views/feeds.view.ts';
import { useTestDaemon } from '../helpers/daemon.ts';

const daemon = await useTestDaemon({ role: 'api' });

describe('each feed operation is one complete entry', () => {
  it.each(FEED_TYPES)('%s names its scope, item schema, presenter, chunk size and apply function', (name) => {
    const op = FEED_OPERATIONS[name];
    expect(['shop', 'product', 'variation']).toContain(op.scope);
    expect(['product', 'variation', 'image']).toContain(op.report);
    expect(op.chunkSize === 'whole' || (Number.isInteger(op.chunkSize) && op.chunkSize > 0)).toBe(true);
    expect(typeof op.apply).toBe('function');
    // Its item schema is one the validator knows: a non-object item is refused with a pointer.
    const v = validateItems(op.items, [42]);
    expect(v.valid).toEqual([]);
    expect(v.errors[0]).toMatchObject({ pointer: '/0' });
  });

  it('an operation applied whole takes the feed in one transaction; the others take CHUNK_SIZE items', () => {
    expect(chunkSizeOf('product_create', 5_000)).toBe(CHUNK_SIZE);
    expect(chunkSizeOf('image_replace', 5_000)).toBe(5_000);
    expect(chunkSizeOf('image_delete', 0)).toBe(1);
  });
});

describe("the readers list exactly the table's operations", () => {
  it("the OpenAPI document offers the feed list's `type` filter as the table's names", async () => {
    const doc = (await daemon.app!.inject('/openapi.json')).json() as {
      paths: Record<string, { get: { parameters: { name: string; schema: { anyOf?: { const?: string; enum?: string[] }[] } }[] } }>;
    };
    const type = doc.paths['/shops/{shop}/feeds/']!.get.parameters.find((p) => p.name === 'type')!;
    // The document writes each `const` as a one-value `enum`.
    expect(type.schema.anyOf!.map((s) => s.const ?? s.enum?.[0])).toEqual(FEED_TYPES);
  });

  it('a type outside the table is refused by the feed list (400), one in it is accepted', async () => {
    const { shopPk, auth } = await daemon.shopWithKey();
    const bad = await daemon.app!.inject({ url: `/shops/${shopPk}/feeds/?type=product_rename`, headers: auth });
    expect(bad.statusCode).toBe(400);
    for (const name of FEED_TYPES) {
      const ok = await daemon.app!.inject({ url: `/shops/${shopPk}/feeds/?type=${name}`, headers: auth });
      expect([name, ok.statusCode]).toEqual([name, 200]);
    }
  });

  it("the admin's feeds page offers one type option per operation", () => {
    const page = String(feedsBody({ count: 0, results: [] }, { page: 1 }, new Map()));
    const select = /<select name="type">([\s\S]*?)<\/select>/.exec(page)![1]!;
    const options = [...select.matchAll(/<option[^>]*>([^<]*)<\/option>/g)].map((m) => m[1]);
    expect(options).toEqual(['any', ...FEED_TYPES]);
  });
});
