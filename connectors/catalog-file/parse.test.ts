// Readers and mapping of catalog-file, on the fixtures: what an ERP sends -> API Products,
// and how a batch's products are submitted and reported.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { canonicalJson, contentHash, validateProducts, type ConnectorContext } from '../sdk/index.ts';
import { CsvGrouper, coerce, renameHeader, type FileProduct } from './map.ts';
import type { InboxFile } from './inbox.ts';
import { readCsv, sniffDelimiter } from './read-csv.ts';
import { readJson } from './read-json.ts';
import { readXml } from './read-xml.ts';
import { addBatch, newReport, type Batch } from './report.ts';
import { submitProducts } from './submit.ts';

const fixture = (name: string): string => path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', name);

/** `read` of the file at `p`, opened as the connector opens an inbox file. */
async function opened<T>(p: string, read: (file: InboxFile) => Promise<T>): Promise<T> {
  const handle = await fs.promises.open(p);
  try {
    return await read({ handle, size: (await handle.stat()).size });
  } finally {
    await handle.close();
  }
}

/** The batches of a CSV file. */
async function csvBatches(file: string, columns: Record<string, string> = {}, size = 1_000): Promise<Batch[]> {
  const batches: Batch[] = [];
  await opened(file, (f) => readCsv(f, columns, size, async (b) => void batches.push(b)));
  return batches;
}

async function csvProducts(file: string, columns: Record<string, string> = {}): Promise<FileProduct[]> {
  const batches = await csvBatches(file, columns);
  const orphans = batches.flatMap((b) => b.orphans);
  if (orphans.length > 0) throw new Error(JSON.stringify(orphans));
  return batches.flatMap((b) => b.products);
}

const messageOf = async (p: Promise<unknown>): Promise<string> => {
  try {
    await p;
  } catch (error) {
    return (error as Error).message;
  }
  return 'no error';
};

/** Every product of a JSON or XML file (its batches, joined). */
const all =
  (read: (file: InboxFile) => AsyncGenerator<FileProduct[]>) =>
  async (file: InboxFile): Promise<FileProduct[]> => {
    const out: FileProduct[] = [];
    for await (const batch of read(file)) out.push(...batch);
    return out;
  };
const json = all((f) => readJson(f, 1_000));
const xml = (columns: Record<string, string> = {}) => all((f) => readXml(f, 1_000, columns));

/** A file of `text` in a temporary folder; its path. */
function temp(name: string, text: string): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'wb-doc-')), name);
  fs.writeFileSync(file, text);
  return file;
}

const drain = (file: string): Promise<void> => opened(file, (f) => readCsv(f, {}, 1_000, async () => undefined));

describe('CSV', () => {
  it('reads products, quoted fields over lines, images split on |, and variation rows', async () => {
    const products = await csvProducts(fixture('products.csv'));
    expect(products.map((p) => p.at)).toEqual([3, 6]);
    expect(products[0]!.product).toEqual({
      sku: 'TEE-1',
      name: 'Tee, organic',
      price: 19.9,
      stock: 10,
      brand: 'Acme',
      description: 'Soft cotton.\nTwo lines, with "quotes".',
      images: ['https://img.example/tee-1a.jpg', 'https://img.example/tee-1b.jpg'],
      availability: 'in_stock',
      variations: [
        { sku: 'TEE-1-S', stock: 4, images: ['https://img.example/tee-1a.jpg'], size: 'S', color: 'red' },
        { sku: 'TEE-1-M', price: 21, stock: 6, size: 'M', color: 'red' },
      ],
    });
    expect(products[0]!.variationsAt).toEqual([4, 5]);
    const v = validateProducts(products.map((p) => p.product));
    expect(v.errors).toEqual([]);
  });

  it('maps an Akeneo export (; delimiter, BOM, decimal comma) with columns renames', async () => {
    expect(await opened(fixture('akeneo.csv'), sniffDelimiter)).toBe(';');
    const products = await csvProducts(fixture('akeneo.csv'), {
      'name-en_US': 'name',
      'price-EUR': 'price',
      'description-en_US-ecommerce': 'description',
    });
    expect(products.map((p) => p.product)).toEqual([
      { sku: 'AK-1', name: 'Desk lamp', price: 49.9, stock: 3, description: 'A lamp; bright', categories: 'lighting', enabled: '1' },
      { sku: 'AK-2', name: 'Floor lamp', price: 129, stock: 0, categories: 'lighting', enabled: '1' },
    ]);
    // Columns outside the field catalog are category attributes: kept, neither errors nor warnings.
    const v = validateProducts(products.map((p) => p.product));
    expect(v.errors).toEqual([]);
    expect(v.warnings).toEqual([]);
    expect(v.valid[0]!.product).toMatchObject({ categories: 'lighting', enabled: '1' });
  });

  it('maps a German ERP header set, children by Vaterartikel', async () => {
    const columns = {
      Artikelnummer: 'sku',
      Vaterartikel: 'parent_sku',
      Bezeichnung: 'name',
      Preis: 'price',
      Bestand: 'stock',
      Lieferzeit: 'delivery_time',
      Hersteller: 'brand',
      Groesse: 'size',
    };
    const [p] = await csvProducts(fixture('erp-de.csv'), columns);
    expect(p!.product).toEqual({
      sku: 'SCHUH-1',
      name: 'Wanderschuh',
      price: 89.95,
      stock: 12,
      delivery_time: 3,
      brand: 'Bergwerk',
      variations: [
        { sku: 'SCHUH-1-42', stock: 5, size: '42' },
        { sku: 'SCHUH-1-43', stock: 7, size: '43' },
      ],
    });
  });

  it('renames headers exactly first, then ignoring case; leaves others', () => {
    expect(renameHeader(['\uFEFFSKU ', 'Preis', 'name'], { sku: 'sku', preis: 'price' })).toEqual(['sku', 'price', 'name']);
  });

  it('keeps text that does not convert, so validation names the field', () => {
    expect(coerce('number', '12,5')).toBe(12.5);
    expect(coerce('number', 'twelve')).toBe('twelve');
    expect(coerce('integer', '3.5')).toBe('3.5');
    expect(coerce('boolean', 'Yes')).toBe(true);
    const v = validateProducts([{ sku: 'A', name: 'A', price: coerce('number', 'twelve'), stock: coerce('integer', '3.5') }]);
    expect(v.errors.map((e) => e.pointer)).toEqual(['/0/price', '/0/stock']);
  });

  it('refuses bad files with one sentence each', async () => {
    expect(await messageOf(drain(fixture('bad/empty.csv')))).toBe('The file is empty (no header row).');
    expect(await messageOf(drain(fixture('bad/header-only.csv')))).toBe('The file has a header row but no product rows.');
    expect(await messageOf(drain(fixture('bad/wrong-delimiter.csv')))).toMatch(
      /^The header row is one field \("sku\\u0009name\\u0009price\\u0009stock"\): the delimiter must be , or ;/,
    );
    expect(await messageOf(drain(fixture('bad/broken-quoting.csv')))).toMatch(/^Broken CSV quoting at line 2/);
    expect(await messageOf(drain(fixture('bad/invalid-utf8.csv')))).toMatch(
      /^The file is not valid UTF-8 \(bad bytes near byte \d+\); export it as UTF-8\.$/,
    );
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-csv-'));
    fs.writeFileSync(path.join(dir, 'unclosed.csv'), 'sku,name,price,stock\nA,"never closed,1,1\nB,b,1,1\n');
    expect(await messageOf(drain(path.join(dir, 'unclosed.csv')))).toMatch(/^Broken CSV quoting: a quoted field is never closed/);
    fs.writeFileSync(path.join(dir, 'nosku.csv'), 'code,name\nA,b\n');
    expect(await messageOf(drain(path.join(dir, 'nosku.csv')))).toMatch(/^The header row has no sku column \(found: "code", "name"\)/);
    fs.writeFileSync(path.join(dir, 'fields.csv'), 'sku,name,price,stock\nA,b,1\n');
    expect(await messageOf(drain(path.join(dir, 'fields.csv')))).toMatch(
      /^The row at line 2 has a different number of fields than the header/,
    );
  });

  it('builds products with their fields in sorted order, variations in their place (canonical: delta hashing skips sorting)', () => {
    const g = new CsvGrouper(['sku', 'parent_sku', 'weight', 'name', 'brand']);
    g.add(['P-1', '', '2', 'P', 'B'], 2);
    g.add(['P-1-S', 'P-1', '', '', ''], 3);
    const [p] = g.take();
    expect(Object.keys(p!.product)).toEqual(['brand', 'name', 'sku', 'variations', 'weight']);
    expect(p!.product).toEqual({ brand: 'B', name: 'P', sku: 'P-1', weight: 2, variations: [{ sku: 'P-1-S' }] });
  });

  it('a file read over many reads: batches of 1,000 products end before a product row, lines stay exact', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-csv-'));
    const file = path.join(dir, 'big.csv');
    // 2,500 products, each followed by 2 variation rows: 7,501 lines, about 500 KB (two reads of 256 KB).
    let text = 'sku,parent_sku,name,price,stock,description,size\n';
    for (let i = 0; i < 2_500; i++) {
      text += `P-${i},,"Product ${i}, quoted",${i === 1_500 ? 'abc' : '10.5'},3,"${'long text '.repeat(15)}",\n`;
      text += `P-${i}-S,P-${i},,,1,,S\nP-${i}-M,P-${i},,,2,,M\n`;
    }
    fs.writeFileSync(file, text);
    const batches = await csvBatches(file);
    expect(batches.map((b) => [b.products.length, b.rows, b.orphans.length])).toEqual([
      [1_000, 3_000, 0],
      [1_000, 3_000, 0],
      [500, 1_500, 0],
    ]);
    // Product i is on line 2 + 3i, its variations on the two lines after it.
    const p = batches[1]!.products[500]!;
    expect([p.product.sku, p.product.price, p.at, p.variationsAt]).toEqual(['P-1500', 'abc', 4_502, [4_503, 4_504]]);
    expect(batches[2]!.products.at(-1)!.product).toEqual({
      description: 'long text '.repeat(15).trim(),
      name: 'Product 2499, quoted',
      price: 10.5,
      sku: 'P-2499',
      stock: 3,
      variations: [
        { size: 'S', sku: 'P-2499-S', stock: 1 },
        { size: 'M', sku: 'P-2499-M', stock: 2 },
      ],
    });
  });

  it('a variation row without its product above is an error of that row', async () => {
    const g = new CsvGrouper(['sku', 'parent_sku', 'size']);
    expect(g.add(['V-1', 'P-1', 'S'], 2).error).toMatch(/parent_sku "P-1" is not a product row above this one/);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-csv-'));
    fs.writeFileSync(path.join(dir, 'orphan.csv'), 'sku,parent_sku,name,price,stock\nA,,a,1,1\nV-1,P-1,,,1\n');
    const [b] = await csvBatches(path.join(dir, 'orphan.csv'));
    expect(b!.orphans).toEqual([
      {
        line: 3,
        sku: 'V-1',
        errors: [{ pointer: '/parent_sku', code: 'not_found', message: expect.stringMatching(/^parent_sku "P-1" is not/) }],
      },
    ]);
  });
});

describe('submitting a batch', () => {
  /** A context whose delta store knows `known` (sku -> hash) and whose feed service records what it gets. */
  const fakeContext = (known: Record<string, string> = {}) => {
    const submitted: { sku: string; json: string; hash: string }[][] = [];
    const ctx = {
      name: 'files',
      shopPk: 1,
      baseUrl: 'http://wb.example',
      delta: { changed: async (_shop: number, items: { sku: string; hash?: string }[]) => items.filter((i) => known[i.sku] !== i.hash) },
      catalog: {
        submitValidated: async (items: { sku: string; json: string; hash: string }[]) => (
          submitted.push(items),
          { pk: '7', url: 'http://wb.example/feeds/7/', total: items.length }
        ),
      },
    } as unknown as ConnectorContext;
    return { ctx, submitted };
  };

  it('sends the changed valid products as canonical JSON with their content hash; errors and warnings point inside each product', async () => {
    const same = { sku: 'S-1', name: 'Same', price: 1, stock: 1 };
    const { ctx, submitted } = fakeContext({ 'S-1': contentHash(same) });
    const r = await submitProducts(ctx, [
      { ...same },
      { stock: 2, sku: 'N-1', price: 2, name: 'New', images: [{ url: 'https://img.example/a.jpg', note: 'x' }] },
      { sku: 'B-1', name: 'Bad', price: -1, stock: 1, variations: [{ sku: 'B-1-S', price: 'x' }] },
    ]);
    expect(r.refused).toEqual([
      {
        index: 2,
        errors: [
          { pointer: '/price', code: 'too_small', message: 'must be >= 0' },
          { pointer: '/variations/0/price', code: 'invalid_type', message: 'must be number' },
        ],
      },
    ]);
    expect(r.warnings).toEqual([{ index: 1, pointer: '/images/0/note', message: 'unknown field, ignored' }]);
    expect(r).toMatchObject({ valid: 2, unchanged: 1, feed: { pk: '7', url: 'http://wb.example/feeds/7/', items: 1 } });
    const [item] = submitted[0]!;
    const product = JSON.parse(item!.json) as unknown;
    expect(product).toEqual({ images: [{ url: 'https://img.example/a.jpg' }], name: 'New', price: 2, sku: 'N-1', stock: 2 });
    expect(item).toEqual({ sku: 'N-1', json: canonicalJson(product), hash: contentHash(product) });
  });

  it('no feed when nothing changed; the report gives CSV errors their line (a variation its own)', async () => {
    const { ctx, submitted } = fakeContext();
    const sent: FileProduct[] = [
      { product: { sku: 'B-1', name: 'Bad', price: 1, stock: 1, variations: [{ sku: 'B-1-S', price: 'x' }] }, at: 4, variationsAt: [5] },
    ];
    const r = await submitProducts(
      ctx,
      sent.map((p) => p.product),
    );
    expect([r.feed, submitted]).toEqual([null, []]);
    const report = newReport('f.csv', 'files', 1, 'csv');
    addBatch(report, 'line', { products: sent, rows: 2, orphans: [] }, sent, [], r);
    expect(report.counts).toMatchObject({ rows: 2, products: 1, variations: 1, valid: 0, invalid: 1, sent: 0 });
    expect(report.errors).toEqual([
      { line: 4, sku: 'B-1', errors: [{ pointer: '/variations/0/price', code: 'invalid_type', message: 'must be number', line: 5 }] },
    ]);
  });
});

describe('JSON', () => {
  it('reads the products POST body, element numbers from 1', async () => {
    const products = await opened(fixture('products.json'), json);
    expect(products.map((p) => [p.at, p.product.sku])).toEqual([
      [1, 'J-1'],
      [2, 'J-2'],
    ]);
    const v = validateProducts(products.map((p) => p.product));
    expect(v.warnings).toEqual([]);
    expect(v.valid[1]!.product).toMatchObject({ template_html: expect.any(String) });
  });

  it('hands the products over in batches, element numbers running on', async () => {
    const file = temp('many.json', JSON.stringify(Array.from({ length: 2_500 }, (_, i) => ({ sku: `M-${i}`, price: 1, stock: 1 }))));
    const sizes: number[] = [];
    const last: number[] = [];
    await opened(file, async (f) => {
      for await (const batch of readJson(f, 1_000)) [sizes[sizes.length], last[last.length]] = [batch.length, batch.at(-1)!.at];
    });
    expect([sizes, last]).toEqual([
      [1_000, 1_000, 500],
      [1_000, 2_000, 2_500],
    ]);
  });

  it('a file that stops being JSON after its first products sends none of them, naming the line', async () => {
    const products = Array.from({ length: 3 }, (_, i) => JSON.stringify({ sku: `B-${i}`, price: 1, stock: 1 }));
    const file = temp('broken.json', `[\n${products.join(',\n')},\n{"sku": "B-3", "price": }\n]`);
    let batches = 0;
    const message = await messageOf(
      opened(file, async (f) => {
        for await (const _ of readJson(f, 1)) batches++;
      }),
    );
    expect([batches, message]).toEqual([0, 'The JSON is not valid at line 5: unexpected "}".']);
    expect(await messageOf(opened(temp('empty.json', '  \n'), json))).toBe('The file is empty.');
    expect(await messageOf(opened(temp('none.json', '[]'), json))).toBe('The JSON array is empty: it holds no products.');
  });

  it('refuses what is not an array or object', async () => {
    expect(await messageOf(opened(fixture('bad/not-array.json'), json))).toBe('The JSON is a number, not an array or object of products.');
  });
});

describe('XML', () => {
  it('reads products with images and variations; the five standard entities only', async () => {
    const products = await opened(fixture('products.xml'), xml());
    expect(products[0]!.product).toEqual({
      sku: 'X-1',
      name: 'Kettle & lid',
      price: 35,
      stock: 4,
      is_default: true,
      images: ['https://img.example/k1.jpg', 'https://img.example/k2.jpg'],
      variations: [
        { sku: 'X-1-W', color: 'white', stock: 2 },
        { sku: 'X-1-B', color: 'black', stock: 2, price: 37.5 },
      ],
    });
    expect(products[1]!.product).toEqual({ sku: 'X-2', name: 'Toaster', price: 25, stock: 1 });
    expect(validateProducts(products.map((p) => p.product)).errors).toEqual([]);
  });

  it('renames element names with columns', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-xml-'));
    fs.writeFileSync(
      path.join(dir, 'de.xml'),
      '<products><product><Artikelnummer>A-1</Artikelnummer><Bezeichnung>Lampe</Bezeichnung><Preis>9,50</Preis><Bestand>2</Bestand>' +
        '<variations><variation><Artikelnummer>A-1-R</Artikelnummer><Farbe>rot</Farbe></variation></variations></product></products>',
    );
    const [p] = await opened(
      path.join(dir, 'de.xml'),
      xml({ Artikelnummer: 'sku', Bezeichnung: 'name', Preis: 'price', Bestand: 'stock', farbe: 'color' }),
    );
    expect(p!.product).toEqual({ sku: 'A-1', name: 'Lampe', price: 9.5, stock: 2, variations: [{ sku: 'A-1-R', color: 'rot' }] });
  });

  it('a file that stops being well-formed after its first products sends none of them, naming the line', async () => {
    const products = Array.from({ length: 3 }, (_, i) => `<product><sku>B-${i}</sku><price>1</price><stock>1</stock></product>`);
    const file = temp('broken.xml', `<products>\n${products.join('\n')}\n<product><sku>B-3</skux></product>\n</products>`);
    let batches = 0;
    const message = await messageOf(
      opened(file, async (f) => {
        for await (const _ of readXml(f, 1)) batches++;
      }),
    );
    expect(batches).toBe(0);
    expect(message).toMatch(/^The XML is not well-formed at line 5: /);
    expect(await messageOf(opened(temp('rss.xml', '<rss><channel><item/></channel></rss>'), xml()))).toBe(
      'The XML root element must be <products> (found "rss").',
    );
    expect(await messageOf(opened(temp('none.xml', '<products></products>'), xml()))).toBe('The XML has no <product> elements.');
    expect(await messageOf(opened(temp('empty.xml', ' '), xml()))).toBe('The file is empty.');
  });

  it('refuses a DOCTYPE (the billion laughs never expand)', async () => {
    expect(await messageOf(opened(fixture('bad/xml-bomb.xml'), xml()))).toBe(
      'The XML has a DOCTYPE or ENTITY declaration, which is refused (entity expansion is off: no XML bombs).',
    );
  });
});
