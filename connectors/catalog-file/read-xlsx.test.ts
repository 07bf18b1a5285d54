// The XLSX reader on workbooks shaped like Akeneo's and Odoo's exports (a header row, then one
// row per product), written here with exceljs; and a 100,000-row sheet read in a process of its
// own, whose live memory stays flat.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { readXlsxRows, type XlsxOptions } from './read-xlsx.ts';
import type { SourceRow } from './row.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const tmp = (name: string): string => path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'waybill-xlsx-')), name);

async function rowsOf(file: string, opts: XlsxOptions = {}): Promise<SourceRow[]> {
  const rows: SourceRow[] = [];
  for await (const batch of readXlsxRows(file, opts)) rows.push(...batch);
  return rows;
}

/** An Akeneo-style product export (header `sku;family;parent;name-en_US;...`) and a second sheet. */
async function akeneoWorkbook(): Promise<string> {
  const file = tmp('akeneo.xlsx');
  const book = new ExcelJS.Workbook();
  const sheet = book.addWorksheet('Products');
  sheet.addRow([
    'sku',
    'family',
    'parent',
    'name-en_US',
    'price-EUR',
    'weight',
    'weight-unit',
    'enabled',
    'release_date',
    'updated',
    '',
    '__proto__',
    'categories',
    'categories',
  ]);
  sheet.addRow([
    'jacket-brown-s',
    'clothing',
    'jacket_brown',
    'Brown jacket',
    0.1 + 0.2,
    800,
    'GRAM',
    true,
    new Date(Date.UTC(2026, 2, 31)),
    new Date(Date.UTC(2026, 2, 31, 14, 5, 0)),
    'no header',
    'p',
    'jackets',
    'winter',
  ]);
  sheet.addRow([]);
  const r = sheet.addRow([
    'scarf',
    'accessories',
    null,
    { richText: [{ text: 'Wool ' }, { font: { bold: true }, text: 'scarf' }] },
    { formula: 'E2*100', result: 30 },
    1234567890123,
    null,
    false,
    null,
    null,
    null,
    null,
    { error: '#N/A' },
  ]);
  r.getCell(9).value = null;
  sheet.getColumn(9).numFmt = 'yyyy-mm-dd';
  sheet.getColumn(10).numFmt = 'yyyy-mm-dd hh:mm';
  const variants = book.addWorksheet('Variants');
  variants.addRow(['sku', 'size']);
  variants.addRow(['jacket-brown-m', 'm']);
  await book.xlsx.writeFile(file);
  return file;
}

describe('XLSX rows', () => {
  it('reads the first sheet: header names, cells as text (numbers as Excel shows them, dates ISO), rows with their line', async () => {
    const rows = await rowsOf(await akeneoWorkbook());
    expect(rows).toHaveLength(2);
    const [jacket, scarf] = rows;
    expect(jacket).toEqual({
      line: 2,
      fields: [
        ['sku', 'jacket-brown-s'],
        ['family', 'clothing'],
        ['parent', 'jacket_brown'],
        ['name-en_US', 'Brown jacket'],
        ['price-EUR', '0.3'],
        ['weight', '800'],
        ['weight-unit', 'GRAM'],
        ['enabled', 'true'],
        ['release_date', '2026-03-31'],
        ['updated', '2026-03-31T14:05:00'],
        ['__proto__', 'p'],
        ['categories', 'jackets'],
        ['categories', 'winter'],
      ],
    });
    // The empty row 3 is skipped; rich text joined, a formula by its result, an error cell empty.
    expect(scarf!.line).toBe(4);
    expect(new Map(scarf!.fields)).toEqual(
      new Map([
        ['sku', 'scarf'],
        ['family', 'accessories'],
        ['parent', ''],
        ['name-en_US', 'Wool scarf'],
        ['price-EUR', '30'],
        ['weight', '1234567890123'],
        ['weight-unit', ''],
        ['enabled', 'false'],
        ['release_date', ''],
        ['updated', ''],
        ['__proto__', ''],
        ['categories', ''],
      ]),
    );
  });

  it('reads the sheet named by `sheet`, in batches', async () => {
    const file = await akeneoWorkbook();
    expect(await rowsOf(file, { sheet: 'Variants' })).toEqual([
      {
        line: 2,
        fields: [
          ['sku', 'jacket-brown-m'],
          ['size', 'm'],
        ],
      },
    ]);
    const batches: number[] = [];
    for await (const b of readXlsxRows(file, { batch_size: 1 })) batches.push(b.length);
    expect(batches).toEqual([1, 1]);
    await expect(rowsOf(file, { sheet: 'Prices' })).rejects.toThrow(
      'The workbook has no sheet named "Prices" (it has: Products, Variants).',
    );
  });

  it('refuses a file that is not a workbook, and a sheet without rows', async () => {
    const csv = tmp('products.xlsx');
    fs.writeFileSync(csv, 'sku,name\nA,B\n');
    await expect(rowsOf(csv)).rejects.toThrow(/could not be read as an XLSX workbook/);
    const empty = tmp('empty.xlsx');
    const book = new ExcelJS.Workbook();
    book.addWorksheet('Products').addRow(['sku', 'name']);
    await book.xlsx.writeFile(empty);
    await expect(rowsOf(empty)).rejects.toThrow('The sheet has a header row but no rows under it.');
  });

  it("keeps text as written: characters cut by the zip's chunks, and entity-like text in inline cells", { timeout: 60_000 }, async () => {
    const texts = ['Größe 40 – 10 € 日本', '&lt;b&gt;Tom &quot;&amp;&quot; Jerry&lt;/b&gt; &nbsp; &#233;', 'a & b < c > "d"'];
    for (const useSharedStrings of [true, false]) {
      const file = tmp(`text-${useSharedStrings}.xlsx`);
      const book = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: file, useSharedStrings });
      const sheet = book.addWorksheet('Produkte');
      sheet.addRow(['sku', 'name']).commit();
      for (let i = 0; i < 20_000; i++) sheet.addRow([`S${i}`, texts[i % texts.length]]).commit();
      sheet.commit();
      await book.commit();
      const wrong = (await rowsOf(file)).filter((r) => r.fields[1]![1] !== texts[(r.line - 2) % texts.length]);
      expect(wrong.slice(0, 3)).toEqual([]);
    }
  });

  it('reads 100,000 rows with flat live memory (measured in a process of its own)', { timeout: 180_000 }, async () => {
    const file = tmp('100k.xlsx');
    const book = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: file, useSharedStrings: true, useStyles: true });
    const sheet = book.addWorksheet('Products');
    sheet.addRow(['sku', 'family', 'parent', 'name-en_US', 'price-EUR', 'weight', 'created']).commit();
    for (let i = 1; i <= 100_000; i++) {
      const row = sheet.addRow([
        `SKU-${i}`,
        'clothing',
        i % 5 === 0 ? '' : `MODEL-${Math.floor(i / 5)}`,
        `Product number ${i} in cotton`,
        19.9 + (i % 100) / 10,
        i / 1000,
        new Date(Date.UTC(2026, 0, 1 + (i % 300))),
      ]);
      row.getCell(7).numFmt = 'yyyy-mm-dd';
      row.commit();
    }
    sheet.commit();
    await book.commit();

    // Live heap (after a full GC) at 20k and at 90k rows, while the sheet is read; peak RSS of the whole process.
    const script = `
      import { readXlsxRows } from ${JSON.stringify(path.join(here, 'read-xlsx.ts'))};
      const live = () => { globalThis.gc(); return process.memoryUsage().heapUsed; };
      let n = 0, at20k = 0, at90k = 0, last = null;
      for await (const b of readXlsxRows(${JSON.stringify(file)})) {
        n += b.length; last = b.at(-1);
        if (n === 20000) at20k = live();
        if (n === 90000) at90k = live();
      }
      console.log(JSON.stringify({ n, at20k, at90k, maxRss: process.resourceUsage().maxRSS * 1024, last }));`;
    const child = spawn(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    const m = JSON.parse(out) as { n: number; at20k: number; at90k: number; maxRss: number; last: SourceRow };
    const MB = 1024 * 1024;
    console.log(
      `xlsx 100k rows: live heap ${Math.round(m.at20k / MB)} MB at 20k, ${Math.round(m.at90k / MB)} MB at 90k; peak RSS ${Math.round(m.maxRss / MB)} MB`,
    );
    expect(m.n).toBe(100_000);
    expect(m.last).toEqual({
      line: 100_001,
      fields: [
        ['sku', 'SKU-100000'],
        ['family', 'clothing'],
        ['parent', ''],
        ['name-en_US', 'Product number 100000 in cotton'],
        ['price-EUR', '19.9'],
        ['weight', '100'],
        ['created', '2026-04-11'],
      ],
    });
    expect(m.at90k - m.at20k).toBeLessThan(16 * MB);
    expect(m.maxRss).toBeLessThan(512 * MB);
  });
});
