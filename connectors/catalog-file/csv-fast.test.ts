// The fast CSV reading (csv-fast.ts) against csv-parse reading the whole file: the same header,
// rows, line numbers and error messages, on generated files (broken quoting, stray CR and LF,
// BOMs, NULs, rows of the wrong width, records across reads) and on large ones.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readCsv } from './parse-csv.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-csv-fast-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** What a reading gives: every batch's header and rows (line, cells), then its error or null. */
async function read(file: string, fast: boolean, readBytes?: number): Promise<{ fields: string[] | null; rows: [number, string[]][]; error: string | null }> {
  let fields: string[] | null = null;
  const rows: [number, string[]][] = [];
  try {
    for await (const b of readCsv(file, {}, { fast, readBytes })) {
      fields ??= b.fields;
      expect(b.fields).toEqual(fields);
      for (const r of b.rows) rows.push([r.line, r.cells]);
    }
    return { fields, rows, error: null };
  } catch (error) {
    return { fields, rows, error: (error as Error).message };
  }
}

let seed = 7;
const random = (): number => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x7fffffff;
};
const pick = <T>(xs: T[]): T => xs[Math.floor(random() * xs.length)]!;
const some = (n: number, xs: string[]): string => Array.from({ length: Math.floor(random() * n) }, () => pick(xs)).join('');
const odd = ['a', ' ', ',', ';', '"', '""', '\n', '\r\n', '\r', '\u0000', '\uFEFF', '😀', '|'];

function field(delimiter: string): string {
  const r = random();
  if (r < 0.6) return some(4, ['a', 'b', 'é', '😀', ' ', 'x1', '12']);
  if (r < 0.9) return `"${some(4, ['a', ' ', delimiter, '""', '\n', '\r\n', 'é'])}"`;
  return `${pick(odd)}${some(3, odd)}`;
}

/** A small CSV, mostly well formed, with odd bytes here and there. */
function generated(): string {
  const delimiter = pick([',', ';']);
  const eol = pick(['\n', '\r\n', '\n', '\r\n', '\r']);
  const header = ['sku', 'name', 'price', 'stock'].slice(0, 1 + Math.floor(random() * 4));
  let text = `${random() < 0.2 ? '\uFEFF' : ''}${random() < 0.1 ? eol : ''}${random() < 0.2 ? '"sku"' : 'sku'}${header.slice(1).map((h) => delimiter + h).join('')}${eol}`;
  const rows = Math.floor(random() * 12);
  for (let i = 0; i < rows; i++) {
    if (random() < 0.1) {
      text += eol;
      continue;
    }
    const width = random() < 0.9 ? header.length : Math.max(1, header.length + pick([-1, 1]));
    text += Array.from({ length: width }, () => field(delimiter)).join(delimiter);
    if (random() < 0.05) text += pick(odd);
    if (i < rows - 1 || random() < 0.7) text += eol;
  }
  return random() < 0.03 ? text.slice(0, Math.floor(random() * text.length)) : text;
}

/** A catalog of `n` rows, quoted fields with "" and line breaks in some, `extra` appended to row i. */
function catalog(n: number, eol: string, extra: (i: number) => string = () => ''): string {
  let text = `sku,name,price,description${eol}`;
  for (let i = 0; i < n; i++) text += `S-${i},"Name ${i}, quoted",${i % 50},"multi${i % 7 === 0 ? `${eol}line` : ''} ""q"" é😀"${extra(i)}${eol}`;
  return text;
}

describe('fast CSV reading', () => {
  it('gives what csv-parse gives on 1,000 generated files, read a few bytes at a time or whole', async () => {
    let differences = 0;
    let errors = 0;
    for (let i = 0; i < 1_000; i++) {
      const text = generated();
      const file = path.join(dir, `g${i}.csv`);
      fs.writeFileSync(file, text);
      const readBytes = pick([1, 2, 3, 7, 64, 65_536]);
      const [fast, reference] = [await read(file, true, readBytes), await read(file, false, readBytes)];
      if (reference.error !== null) errors++;
      if (JSON.stringify(fast) !== JSON.stringify(reference)) {
        differences++;
        expect({ text, readBytes, fast }).toEqual({ text, readBytes, fast: reference });
      }
      fs.rmSync(file);
    }
    expect(differences).toBe(0);
    // The generated files do exercise csv-parse's errors (about two in three).
    expect(errors).toBeGreaterThan(250);
  });

  it.each([
    ['LF', catalog(30_000, '\n')],
    ['CRLF', catalog(30_000, '\r\n')],
    ['a broken quote at row 20,000', catalog(30_000, '\n', (i) => (i === 20_000 ? 'x"' : ''))],
    ['a row too wide at row 25,000 (CRLF)', catalog(30_000, '\r\n', (i) => (i === 25_000 ? ',extra' : ''))],
    ['a stray CR at row 15,000', catalog(30_000, '\n', (i) => (i === 15_000 ? '\rz' : ''))],
    ['an unclosed quote at the end', `${catalog(30_000, '\n')}S-x,"never`],
    ['a valid record of 400,000 characters', `sku,name\nA,${'é'.repeat(400_000)}\nB,b\n`],
    ['a quoted record over 1 MiB in bytes, not in characters', `sku,name\nA,"${'€'.repeat(360_000)}"\nB,b\n`],
    ['a runaway quote', `sku,name\nA,"open\n${'B,b\n'.repeat(300_000)}`],
  ])('gives what csv-parse gives on a large file: %s', async (_name, text) => {
    const file = path.join(dir, 'large.csv');
    fs.writeFileSync(file, text);
    const [fast, reference] = [await read(file, true), await read(file, false)];
    expect(fast.rows.length).toBe(reference.rows.length);
    expect(fast).toEqual(reference);
  });
});
