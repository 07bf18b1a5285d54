// The field catalog is one source: GET /fields/ shows it, the OpenAPI document's Product schema
// carries the same bounds and values, and validation refuses exactly what it says.
import { describe, expect, it } from 'vitest';
import { FIELD_CATALOG } from '../../src/catalog/field-catalog.ts';
import { useTestDaemon } from '../helpers/daemon.ts';
import { expectProblem, product, write } from './catalog-helpers.ts';

const daemon = await useTestDaemon();
const app = daemon.app!;
const { shopPk, auth } = await daemon.shopWithKey();
const PRODUCTS = `/shops/${shopPk}/products/`;

interface Field {
  name: string;
  text: string;
  format: string;
  requirement: 'Required' | 'Recommended' | 'Optional';
  max_length: number | null;
  min_num: number | null;
  max_num: number | null;
  options: { value: string; text: string }[] | null;
  in_variation: boolean;
}
const fields = async (): Promise<Field[]> => {
  const res = await app.inject({ url: '/fields/', headers: auth });
  expect([res.statusCode, res.headers.allow]).toEqual([200, 'GET, OPTIONS']);
  return res.json() as Field[];
};

describe('GET /fields/', () => {
  it('lists every documented field with its rules, in the documented shape', async () => {
    const list = await fields();
    expect(list.map((f) => f.name)).toEqual(FIELD_CATALOG.map((f) => f.name));
    for (const f of list)
      expect(Object.keys(f).sort()).toEqual([
        'format',
        'in_variation',
        'max_length',
        'max_num',
        'min_num',
        'name',
        'options',
        'requirement',
        'text',
      ]);
    const by = new Map(list.map((f) => [f.name, f]));
    expect(by.get('sku')).toMatchObject({ requirement: 'Required', max_length: 100, in_variation: true });
    expect(['name', 'price', 'stock'].map((n) => by.get(n)!.requirement)).toEqual(['Required', 'Required', 'Required']);
    expect(by.get('price')).toMatchObject({ min_num: 0, max_num: null });
    expect(by.get('stock')).toMatchObject({ format: 'integer', min_num: 0, max_num: 2_147_483_647 });
    expect(by.get('discount')).toMatchObject({ min_num: 0, max_num: 99 });
    expect(by.get('shipping')).toMatchObject({ format: 'decimal', min_num: null, max_num: null });
    expect(by.get('availability')!.options!.map((o) => o.value)).toEqual(['in_stock', 'preorder', 'out_of_stock']);
    expect(by.get('gender')!.options!.map((o) => o.value)).toEqual(['unisex', 'male', 'female', 'boy', 'girl']);
    expect((await app.inject({ url: '/fields/' })).statusCode).toBe(401);
  });

  it("agrees with the OpenAPI document: each Product property has the catalog's bounds and values", async () => {
    const res = await app.inject({ url: '/openapi.json' });
    const doc = res.json() as {
      paths: Record<
        string,
        Record<
          string,
          {
            requestBody: {
              content: Record<string, { schema: { anyOf: { properties: Record<string, Record<string, unknown>>; required: string[] }[] } }>;
            };
          }
        >
      >;
    };
    const product = doc.paths['/shops/{shop}/products/']!.post!.requestBody.content['application/json']!.schema.anyOf[0]!;
    for (const f of await fields()) {
      const p = product.properties[f.name]!;
      expect(p, f.name).toBeDefined();
      if (f.max_length !== null && f.format === 'text') expect(p.maxLength, f.name).toBe(f.max_length);
      if (f.min_num !== null) expect(p.minimum, f.name).toBe(f.min_num);
      if (f.max_num !== null) expect(p.maximum, f.name).toBe(f.max_num);
      if (f.min_num === null && (f.format === 'decimal' || f.format === 'integer')) expect(p.minimum, f.name).toBeUndefined();
      // OpenAPI 3.0 has no const: a one-value enum.
      if (f.options !== null)
        expect(
          (p.anyOf as { const?: string; enum?: string[] }[]).map((b) => b.const ?? b.enum?.[0]),
          f.name,
        ).toEqual(f.options.map((o) => o.value));
      expect(product.required.includes(f.name), f.name).toBe(f.requirement === 'Required');
    }
  });

  it('agrees with validation: a value just past each bound, or outside each option list, is refused at its pointer', async () => {
    const list = await fields();
    const bad: Record<string, unknown> = {};
    const edge: Record<string, unknown> = {};
    for (const f of list) {
      if (f.format === 'text' && f.max_length !== null && f.name !== 'sku') {
        bad[f.name] = 'x'.repeat(f.max_length + 1);
        edge[f.name] = 'x'.repeat(f.max_length);
      } else if (f.options !== null) {
        bad[f.name] = 'not-an-option';
        edge[f.name] = f.options.at(-1)!.value;
      } else if (f.max_num !== null) {
        bad[f.name] = f.max_num + 1;
        edge[f.name] = f.max_num;
      } else if (f.min_num !== null) {
        bad[f.name] = f.min_num - 1;
        edge[f.name] = f.min_num;
      }
    }
    const res = await app.inject({ method: 'POST', url: PRODUCTS, headers: auth, payload: { ...product('FIELDS'), ...bad } });
    expect(
      expectProblem(res, 400, 'validation_failed')
        .errors!.map((e) => e.pointer.slice(1))
        .sort(),
    ).toEqual(Object.keys(bad).sort());
    const ok = await write(app, auth, 'POST', PRODUCTS, { ...product('FIELDS'), ...edge });
    expect(ok.counts).toMatchObject({ succeeded: 1, failed: 0, warnings: 0 });
  });
});
