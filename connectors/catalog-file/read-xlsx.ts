// XLSX, streamed through exceljs' WorkbookReader: one worksheet (the first, or `sheet` by
// name), its first non-empty row as the header, every later non-empty row as a SourceRow of
// (header name, cell as text). Rows are handed over in batches; the sheet is never held whole.
// Memory: exceljs keeps the shared-strings table (every distinct text of the workbook) and the
// styles (to tell dates from numbers); rows are dropped once read.
import fs from 'node:fs';
import type { Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import { userError } from '../sdk/index.ts';
import type { SourceRow } from './row.ts';

export interface XlsxOptions {
  /** The worksheet's name (as on its tab); default: the workbook's first sheet. */
  sheet?: string;
  /** Rows per batch (default 500). */
  batch_size?: number;
  signal?: AbortSignal;
}

/** Bytes as text, a character split across two chunks kept whole. */
async function* utf8Text(chunks: AsyncIterable<Buffer | string>): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8');
  for await (const chunk of chunks) {
    const text = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    if (text !== '') yield text;
  }
  const rest = decoder.decode();
  if (rest !== '') yield rest;
}

/**
 * A sheet's XML with each named entity reference escaped once more (`&amp;` -> `&amp;amp;`).
 * exceljs 4.4.0 decodes the five named entities of inline-string and formula-string cells a
 * second time after the XML parser did (utils.xmlDecode), so a cell holding the text `&lt;b&gt;`
 * would read as `<b>`; escaped once more, it reads as written. Shared strings and numbers
 * are not decoded twice and carry no entity here. A reference cut by a chunk's end waits for the next.
 */
export async function* onceMoreEscaped(texts: AsyncIterable<string>): AsyncGenerator<string> {
  let carry = '';
  for await (const t of texts) {
    const text = carry + t;
    const amp = text.lastIndexOf('&');
    const cut = amp >= 0 && text.length - amp < 12 && !text.includes(';', amp) ? amp : text.length;
    carry = text.slice(cut);
    const out = text.slice(0, cut).replace(/&([a-z]+);/g, '&amp;$1;');
    if (out !== '') yield out;
  }
  if (carry !== '') yield carry.replace(/&([a-z]+);/g, '&amp;$1;');
}

type Entry = AsyncIterable<Buffer> & { setEncoding(encoding: 'utf8'): void };
type Reader = new (
  input: string | Readable,
  options: Partial<ExcelJS.stream.xlsx.WorkbookStreamReaderOptions>,
) => ExcelJS.stream.xlsx.WorkbookReader;

/**
 * exceljs 4.4.0's reader decodes each chunk of the zip's XML on its own (utils/parse-sax.js), so
 * a character whose bytes straddle two chunks becomes U+FFFD ("Gr��e"): one row in ~1,000 with
 * non-ASCII text. Its sheet and shared-strings parts are handed over as text instead, decoded
 * across chunks (the parser passes text through), the sheet's entities escaped once more (see
 * onceMoreEscaped). These are the reader's own methods, pinned with the exact version.
 */
interface ReaderParts {
  _parseWorksheet(iterator: AsyncIterable<Buffer | string>, sheetNo: string): unknown;
  _parseSharedStrings(entry: Entry): unknown;
}
const WholeCharReader = class extends (ExcelJS.stream.xlsx.WorkbookReader as unknown as new (...args: unknown[]) => ReaderParts) {
  override _parseWorksheet(iterator: AsyncIterable<Buffer | string>, sheetNo: string): unknown {
    return super._parseWorksheet(onceMoreEscaped(utf8Text(iterator)), sheetNo);
  }

  override _parseSharedStrings(entry: Entry): unknown {
    entry.setEncoding('utf8');
    return super._parseSharedStrings(entry);
  }
} as unknown as Reader;

/** What exceljs' streaming reader holds beyond its published typing. */
interface SheetReader extends AsyncIterable<ExcelJS.Row> {
  name: string;
}
interface BookModel {
  model?: { sheets?: Array<{ name: string }> };
}

/** A number as Excel shows it: 15 significant digits, so 0.1 + 0.2 stays "0.3". */
export function numberText(n: number): string {
  if (!Number.isFinite(n)) return '';
  return String(Number(n.toPrecision(15)));
}

/** A date cell (exceljs reads its serial as UTC wall-clock): `2024-03-31`, or with its time `2024-03-31T14:05:00`. */
export function dateText(d: Date): string {
  if (Number.isNaN(d.getTime())) return '';
  // Serials carry float noise (…59.999 s): round to the second.
  const iso = new Date(Math.round(d.getTime() / 1000) * 1000).toISOString();
  return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso.slice(0, 19);
}

/** A cell's value as text: rich text joined, formulas by their result, errors (#N/A) empty. */
export function cellText(value: ExcelJS.CellValue): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return numberText(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (value instanceof Date) return dateText(value);
  if ('richText' in value) return value.richText.map((r) => r.text ?? '').join('');
  if ('error' in value) return '';
  if ('formula' in value || 'sharedFormula' in value) return cellText((value as { result?: ExcelJS.CellValue }).result ?? null);
  if ('text' in value) return String((value as { text: unknown }).text ?? '');
  return '';
}

/** Cells of a row by column number (1-based), as text, trimmed; '' where the row has none. */
function rowTexts(row: ExcelJS.Row): string[] {
  const values = row.values as ExcelJS.CellValue[];
  const out: string[] = [];
  for (let col = 1; col < values.length; col++) out[col] = cellText(values[col] ?? null).trim();
  return out;
}

async function* sheetRows(source: string | Readable, wanted: string | undefined): AsyncGenerator<{ sheet: SheetReader }> {
  const book = new WholeCharReader(source, {
    worksheets: 'emit',
    sharedStrings: 'cache',
    styles: 'cache', // number formats: the only way to know a date from a number
    hyperlinks: 'ignore',
    entries: 'ignore',
  });
  const seen: string[] = [];
  for await (const sheet of book as unknown as AsyncIterable<SheetReader>) {
    seen.push(sheet.name);
    const first = (book as unknown as BookModel).model?.sheets?.[0]?.name;
    const pick = wanted !== undefined ? sheet.name === wanted : first === undefined || sheet.name === first;
    if (pick) {
      yield { sheet };
      return;
    }
    // Not the one: read past it (the zip is a stream; the next sheet comes after it).
    for await (const row of sheet) void row;
  }
  throw userError(
    wanted !== undefined
      ? `The workbook has no sheet named "${wanted}" (it has: ${seen.join(', ').slice(0, 200) || 'none'}).`
      : 'The workbook has no worksheet.',
  );
}

/**
 * Reads the rows of an XLSX workbook's sheet as SourceRows (`line` = the row's number in the
 * sheet), in batches of `batch_size`. Every header column is in each row, '' where the cell is
 * empty; columns with an empty header cell are left out; repeated header names stay repeated.
 * Throws a user error for a file that is not a workbook or a sheet without a header row.
 */
export async function* readXlsxRows(source: string | Readable, opts: XlsxOptions = {}): AsyncGenerator<SourceRow[]> {
  const batchSize = opts.batch_size ?? 500;
  const input = typeof source === 'string' ? fs.createReadStream(source, { highWaterMark: 256 * 1024, signal: opts.signal }) : source;
  let header: Array<[col: number, name: string]> | null = null;
  let batch: SourceRow[] = [];
  let rows = 0;
  try {
    for await (const { sheet } of sheetRows(input, opts.sheet)) {
      for await (const row of sheet) {
        const cells = rowTexts(row);
        if (!cells.some((c) => c !== '')) continue;
        if (header === null) {
          header = [];
          cells.forEach((name, col) => {
            if (name !== '') header!.push([col, name]);
          });
          continue;
        }
        batch.push({ line: row.number, fields: header.map(([col, name]) => [name, cells[col] ?? '']) });
        rows++;
        if (batch.length >= batchSize) {
          yield batch;
          batch = [];
        }
      }
    }
  } catch (error) {
    if ((error as { code?: string }).code === 'connector_input' || opts.signal?.aborted) throw error;
    throw userError(`The file could not be read as an XLSX workbook: ${(error as Error).message}`, { cause: error });
  } finally {
    input.destroy();
  }
  if (header === null) throw userError('The sheet is empty (no header row).');
  if (rows === 0) throw userError('The sheet has a header row but no rows under it.');
  if (batch.length > 0) yield batch;
}
