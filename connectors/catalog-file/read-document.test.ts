// Document readers on fixtures written after the public formats: a Google Merchant RSS feed
// (g: namespace, repeated and nested elements, CDATA, a malformed item), an Akeneo REST API
// page (localized and scoped values, prices, media links, a broken item) and JSON Lines.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readDocumentRows, type DocumentOptions, type ItemError } from './read-document.ts';
import type { SourceRow } from './row.ts';

const fixture = (name: string): string => path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', name);
const G = { g: 'http://base.google.com/ns/1.0' };

async function read(
  file: string,
  opts: Omit<DocumentOptions, 'onItemError'>,
): Promise<{ rows: SourceRow[]; errors: ItemError[]; batches: number }> {
  const errors: ItemError[] = [];
  const rows: SourceRow[] = [];
  let batches = 0;
  for await (const batch of readDocumentRows(file, { ...opts, onItemError: (e) => errors.push(e) })) {
    batches++;
    rows.push(...batch);
  }
  return { rows, errors, batches };
}

const values = (row: SourceRow, name: string): string[] => row.fields.filter(([n]) => n === name).map(([, v]) => v);

function tmpFile(name: string, text: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'waybill-doc-'));
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

describe('XML items (Google Merchant RSS)', () => {
  it('reads each item: namespaced names, repeated and nested elements, CDATA; a malformed item is an error with its line', async () => {
    const { rows, errors } = await read(fixture('google-merchant.xml'), { format: 'xml', item_path: 'rss.channel.item', namespaces: G });
    expect(rows.map((r) => values(r, 'g:id')[0])).toEqual(['TSHIRT-RED-S', 'MUG-1']);
    const [shirt, mug] = rows;
    expect(shirt!.line).toBe(7);
    expect(values(shirt!, 'title')).toEqual(['Cotton T-shirt & more']);
    expect(values(shirt!, 'description')).toEqual(['Soft <b>cotton</b> shirt, 100% organic']);
    expect(values(shirt!, 'g:additional_image_link')).toEqual([
      'https://shop.example.com/img/tshirt-red-2.jpg',
      'https://shop.example.com/img/tshirt-red-3.jpg',
    ]);
    expect(values(shirt!, 'g:shipping.g:price')).toEqual(['4.95 USD']);
    expect(values(shirt!, 'g:shipping.g:country')).toEqual(['US']);
    expect(values(shirt!, 'g:price')).toEqual(['15.00 USD']);
    expect(values(shirt!, 'g:shipping')).toEqual([]);
    // Source order is kept.
    expect(shirt!.fields.slice(0, 3).map(([n]) => n)).toEqual(['g:id', 'title', 'description']);
    expect(values(mug!, 'g:availability')).toEqual(['']);
    expect(errors).toEqual([{ line: 29, message: 'Line 33: unexpected close tag.' }]);
  });

  it("names elements by the namespace, not the file's prefix; an undefined entity is its item's error; __proto__ is a plain name", async () => {
    const { rows, errors } = await read(fixture('google-merchant-prefix.xml'), {
      format: 'xml',
      item_path: 'rss.channel.item',
      namespaces: G,
    });
    expect(rows.map((r) => values(r, 'g:id')[0])).toEqual(['A-1', 'A-3']);
    expect(values(rows[0]!, '__proto__')).toEqual(['x']);
    expect(values(rows[0]!, 'g:gtin')).toEqual(['0012345678905']);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.line).toBe(5);
    expect(errors[0]!.message).toMatch(/undefined entity/);
  });

  it('expands no entity a DOCTYPE declares (no XML bomb), and says so for that item', async () => {
    const file = tmpFile(
      'bomb.xml',
      '<?xml version="1.0"?>\n<!DOCTYPE r [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]>\n<r><item><id>1</id><t>&b;</t></item><item><id>2</id></item></r>',
    );
    const { rows, errors } = await read(file, { format: 'xml', item_path: 'r.item' });
    expect(rows.map((r) => r.fields)).toEqual([[['id', '2']]]);
    expect(errors[0]!.message).toMatch(/undefined entity/);
  });

  it("reads attributes (Atom links), caps an item's size, and batches", async () => {
    const items = Array.from({ length: 7 }, (_, i) => `<entry><id>${i}</id><link href="https://x.example/${i}"/></entry>`).join('\n');
    const big = `<entry><id>big</id><summary>${'x'.repeat(3000)}</summary></entry>`;
    const file = tmpFile('atom.xml', `<feed xmlns="http://www.w3.org/2005/Atom">\n${big}\n${items}\n</feed>`);
    const { rows, errors, batches } = await read(file, { format: 'xml', item_path: 'feed.entry', max_item_bytes: 2000, batch_size: 3 });
    expect(rows).toHaveLength(7);
    expect(batches).toBe(3);
    expect(rows[6]!.fields).toEqual(
      [
        ['link@href', 'https://x.example/6'],
        ['id', '6'],
      ].reverse(),
    );
    expect(errors).toEqual([{ line: 2, message: 'The item is larger than 2000 characters.' }]);
  });

  it('refuses a file that breaks outside the items, after handing over the items before it', async () => {
    const file = tmpFile('cut.xml', '<r>\n<item><id>1</id></item>\n<item><id>2</id></item>\n</x>');
    const rows: SourceRow[] = [];
    await expect(async () => {
      for await (const b of readDocumentRows(file, { format: 'xml', item_path: 'r.item', onItemError: () => {} })) rows.push(...b);
    }).rejects.toThrow(/not well-formed at line 4/);
    expect(rows).toHaveLength(2);
  });

  it('says when no element is at the item path', async () => {
    const file = tmpFile('rss.xml', '<rss><channel><item><title>A</title></item></channel></rss>');
    await expect(read(file, { format: 'xml', item_path: 'products.product' })).rejects.toThrow(
      'The file has no items at "products.product"',
    );
  });
});

describe('JSON items (Akeneo REST API page)', () => {
  it('reads _embedded.items: values by locale and scope, prices per currency, media links, lists joined', async () => {
    const { rows, errors } = await read(fixture('akeneo-products.json'), { format: 'json', item_path: '_embedded.items' });
    expect(rows).toHaveLength(2);
    const [jacket, scarf] = rows;
    expect(jacket!.line).toBe(9);
    const f = new Map(jacket!.fields.filter(([n]) => n !== 'values.price'));
    expect(f.get('identifier')).toBe('jacket-brown-s');
    expect(f.get('parent')).toBe('jacket_brown');
    expect(f.get('family')).toBe('clothing');
    expect(f.get('enabled')).toBe('true');
    expect(f.get('categories')).toBe('jackets,winter_2026');
    expect(f.get('values.name')).toBe('Brown jacket');
    expect(f.get('values.description')).toBe('A warm <b>brown</b> jacket.');
    expect(f.get('values.size')).toBe('s');
    expect(f.get('values.weight')).toBe('800.0000 GRAM');
    expect(values(jacket!, 'values.price')).toEqual(['89.90 EUR', '99.00 USD']);
    expect(f.get('values.price.EUR')).toBe('89.90');
    expect(f.get('values.price.USD')).toBe('99.00');
    expect(f.get('values.picture')).toBe('https://pim.example.com/api/rest/v1/media-files/a/b/c/d/abcd_jacket.jpg/download');
    expect(f.get('values.collection')).toBe('summer_2017,winter_2026');
    expect(f.has('values.only_german')).toBe(false);
    expect(f.get('associations.X_SELL.products')).toBe('belt-brown');
    expect(values(scarf!, 'values.__proto__')).toEqual(['harmless']);
    expect(values(scarf!, 'parent')).toEqual(['']);
    expect(values(scarf!, 'values.price')).toEqual([]);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.line).toBe(38);
    expect(errors[0]!.message).toMatch(/^Line 41: /);
  });

  it('takes another locale and channel when asked', async () => {
    const { rows } = await read(fixture('akeneo-products.json'), {
      format: 'json',
      item_path: '_embedded.items',
      locale: 'fr_FR',
      scope: 'mobile',
    });
    const f = new Map(rows[0]!.fields);
    expect(f.get('values.name')).toBe('Veste marron');
    expect(f.has('values.description')).toBe(false);
  });

  it("reads a plain array document and caps an item's size", async () => {
    const file = tmpFile('a.json', `[\n{"sku":"A","n":1.5},\n{"sku":"B","long":"${'y'.repeat(500)}"},\n{"sku":"C"}\n]`);
    const { rows, errors } = await read(file, { format: 'json', item_path: '', max_item_bytes: 100 });
    expect(rows.map((r) => r.fields)).toEqual([
      [
        ['sku', 'A'],
        ['n', '1.5'],
      ],
      [['sku', 'C']],
    ]);
    expect(rows.map((r) => r.line)).toEqual([2, 4]);
    expect(errors).toEqual([{ line: 3, message: 'The item is larger than 100 bytes.' }]);
  });

  it('stops at the first unreadable item when no one listens for item errors', async () => {
    await expect(async () => {
      for await (const b of readDocumentRows(fixture('akeneo-products.json'), { format: 'json', item_path: '_embedded.items' })) void b;
    }).rejects.toThrow(/The item at line 38 could not be read/);
  });

  it('refuses bytes that are not JSON, saying the line', async () => {
    const file = tmpFile('bad.json', '{"items": [\n{"a": 1},\n{"a": tru}\n]}');
    await expect(read(file, { format: 'json', item_path: 'items' })).rejects.toThrow('The JSON is not valid at line 3: unexpected "}".');
  });
});

describe('JSON Lines', () => {
  it("reads one item per line (product models), a broken line is that line's error", async () => {
    const { rows, errors } = await read(fixture('akeneo-product-models.jsonl'), { format: 'jsonl', item_path: '' });
    expect(rows.map((r) => [r.line, new Map(r.fields).get('code')])).toEqual([
      [1, 'jacket_brown'],
      [4, 'scarf_model'],
    ]);
    expect(new Map(rows[0]!.fields).get('values.color')).toBe('brown');
    expect(new Map(rows[0]!.fields).get('family_variant')).toBe('clothing_size');
    expect(errors.map((e) => e.line)).toEqual([3]);
  });
});
