// CSV, streamed through csv-parse: `,` or `;` (whichever the header line has more of), strict
// UTF-8 with or without BOM, RFC 4180 quoting, every row as wide as the header. Rows become
// products (map.ts) and are handed over in batches; the file is never held whole.
import { pipeline } from 'node:stream/promises';
import { setImmediate } from 'node:timers/promises';
import { CsvError, parse, type Options } from 'csv-parse';
import { userError } from '../sdk/index.ts';
import { streamOf, type InboxFile } from './inbox.ts';
import { CsvGrouper, renameHeader } from './map.ts';
import type { Batch } from './report.ts';
import { checkUtf8, excerpt } from './utf8.ts';

/** A record longer than this is refused (a runaway quote would otherwise swallow the file). */
export const MAX_RECORD_BYTES = 1024 * 1024;
/** Columns a header may have: a product holds at most 500 category attributes besides its fields; room for sparse PIM exports. */
export const MAX_COLUMNS = 2_000;
/** Bytes parsed at a time: about 20 ms of event loop for the widest records (docs/reliability.md). */
const CHUNK_BYTES = 64 * 1024;
/** Longest run of rows read without yielding to the event loop, ms. */
const SLICE_MS = 20;

const tooManyColumns = (n: number, more = ''): Error =>
  userError(
    `The header row has ${n.toLocaleString('en')}${more} columns; a file may have at most ${MAX_COLUMNS.toLocaleString('en')} (catalog-file's column limit).`,
  );

/**
 * `,` or `;`: whichever the header line (outside quotes) has more of; `,` when it has neither.
 * A header with more than MAX_COLUMNS fields in its first 64 KiB is refused here, before the
 * parser reads a record that wide.
 */
export async function sniffDelimiter(file: InboxFile): Promise<',' | ';'> {
  const buf = Buffer.alloc(Math.min(64 * 1024, file.size));
  const { bytesRead } = await file.handle.read(buf, 0, buf.length, 0);
  let commas = 0;
  let semis = 0;
  let quoted = false;
  for (const ch of buf.subarray(0, bytesRead).toString('utf8')) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && (ch === '\n' || ch === '\r')) break;
    else if (!quoted && ch === ',') commas++;
    else if (!quoted && ch === ';') semis++;
  }
  const widest = Math.max(commas, semis) + 1;
  if (widest > MAX_COLUMNS) throw tooManyColumns(widest, bytesRead === buf.length ? ' or more' : '');
  return semis > commas ? ';' : ',';
}

/** The first header names, escaped, in about 100 characters: what a report may quote of a header. */
function headerExcerpt(header: string[]): string {
  const shown: string[] = [];
  let length = 0;
  for (const h of header) {
    if (shown.length === 6 || length > 100) break;
    const e = excerpt(h, 30);
    shown.push(e);
    length += e.length + 2;
  }
  return `${shown.join(', ')}${shown.length < header.length ? `, ... (${header.length} columns)` : ''}`;
}

/**
 * The header row -> the Product field of each column (after `columns` renames); it must name
 * sku, each field once, in at most MAX_COLUMNS columns. Linear in the header's width.
 */
function headerFields(header: string[], columns: Record<string, string>): string[] {
  checkWidth(header);
  const fields = renameHeader(header, columns);
  if (!fields.includes('sku')) {
    const first = header[0] ?? '';
    // One field holding tabs or pipes: a delimiter we do not read.
    throw userError(
      header.length === 1 && /[\t|]/.test(first)
        ? `The header row is one field (${excerpt(first, 60)}): the delimiter must be , or ; (tab and | are not read).`
        : `The header row has no sku column (found: ${headerExcerpt(header)}); rename one with the connector's "columns" option.`,
    );
  }
  const seen = new Set<string>();
  for (const f of fields) {
    if (seen.has(f)) throw userError(`The header row names the field ${excerpt(f)} twice (after the "columns" renames).`);
    seen.add(f);
  }
  return fields;
}

/** A csv-parse error as one sentence for the file's report. */
export function explainCsvError(error: CsvError): string {
  const line = (error as { lines?: number }).lines;
  const at = line === undefined ? '' : ` at line ${line}`;
  switch (error.code) {
    case 'CSV_QUOTE_NOT_CLOSED':
      return `Broken CSV quoting: a quoted field is never closed (the file ends inside quotes${at}).`;
    case 'CSV_INVALID_CLOSING_QUOTE':
    case 'INVALID_OPENING_QUOTE':
    case 'CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE':
      return `Broken CSV quoting${at}: a quote inside a field must be doubled ("") and the field quoted.`;
    case 'CSV_RECORD_INCONSISTENT_FIELDS_LENGTH':
      return `The row${at} has a different number of fields than the header (a wrong delimiter or broken quoting).`;
    case 'CSV_MAX_RECORD_SIZE':
      return `The row${at} is longer than 1 MB (probably an unclosed quote).`;
    default:
      return `The CSV could not be read${at}: ${error.message}`;
  }
}

/** A row as csv-parse hands it over: the line of the file where it ends, and its cells. */
export interface Row {
  line: number;
  cells: string[];
}

/**
 * The one CSV parse of a catalog file: the file's records (line and cells), read through its
 * open handle a slice at a time, the event loop given a turn every SLICE_MS. Both readers (the
 * plain one below, and the preset engine's source rows) consume these records.
 */
export async function parseCsv(
  file: InboxFile,
  consume: (records: AsyncIterable<Row>) => Promise<void>,
  signal?: AbortSignal,
): Promise<void> {
  const options: Options<Row, string[]> = {
    delimiter: await sniffDelimiter(file),
    bom: true,
    skip_empty_lines: true,
    max_record_size: MAX_RECORD_BYTES,
    // Named: csv-parse finds the line end itself by allocating at every byte of the first
    // record (over 300 ms of event loop for a 1 MB header line).
    record_delimiter: ['\r\n', '\n', '\r'],
    // Records stay arrays (the header is read below): csv-parse's `columns` objects take about
    // twice the parsing time. Only the line is kept of the context (`info` copies it whole).
    on_record: (cells, context) => ({ line: context.lines, cells }),
  };
  // (csv-parse's typing knows no on_record that changes the record's type without `columns`.)
  const parser = parse(options as unknown as Options);
  // Records already parsed come without a turn of the event loop in between: give it one
  // every SLICE_MS, so other requests are answered while a file is read.
  async function* sliced(records: AsyncIterable<Row>): AsyncGenerator<Row> {
    let slice = performance.now();
    for await (const record of records) {
      if (performance.now() - slice > SLICE_MS) {
        await setImmediate();
        slice = performance.now();
      }
      yield record;
    }
  }
  try {
    await pipeline(streamOf(file, CHUNK_BYTES, signal), checkUtf8, parser, (records: AsyncIterable<Row>) => consume(sliced(records)));
  } catch (error) {
    if (error instanceof CsvError) throw userError(explainCsvError(error), { cause: error });
    throw error;
  }
}

/** A header of more than MAX_COLUMNS names is refused, naming the limit. */
export function checkWidth(header: string[]): void {
  if (header.length > MAX_COLUMNS) throw tooManyColumns(header.length);
}

/**
 * Reads a CSV file: the header row, then products of about `batchSize` (a product's variation
 * rows stay in its batch), each batch awaited by `emit` before more of the file is read.
 * Throws a user error for a file that cannot be read as a catalog.
 */
export async function readCsv(
  file: InboxFile,
  columns: Record<string, string>,
  batchSize: number,
  emit: (batch: Batch) => Promise<void>,
  signal?: AbortSignal,
): Promise<void> {
  await parseCsv(
    file,
    async (records) => {
      let grouper: CsvGrouper | null = null;
      let rows = 0;
      let batch: Batch = { products: [], rows: 0, orphans: [] };
      const flush = async (g: CsvGrouper): Promise<void> => {
        batch.products = g.take();
        await emit(batch);
        batch = { products: [], rows: 0, orphans: [] };
      };
      for await (const { line, cells } of records) {
        if (grouper === null) {
          grouper = new CsvGrouper(headerFields(cells, columns));
          continue;
        }
        // A batch ends only before a product row, so a product's variation rows stay with it.
        if (grouper.order.length >= batchSize && grouper.startsProduct(cells)) await flush(grouper);
        rows++;
        batch.rows++;
        const r = grouper.add(cells, line);
        if (r.error !== undefined)
          batch.orphans.push({ line, sku: r.sku ?? null, errors: [{ pointer: '/parent_sku', code: 'not_found', message: r.error }] });
      }
      if (grouper === null) throw userError('The file is empty (no header row).');
      if (rows === 0) throw userError('The file has a header row but no product rows.');
      await flush(grouper);
    },
    signal,
  );
}
