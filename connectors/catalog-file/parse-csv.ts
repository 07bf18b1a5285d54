// CSV, streamed: `,` or `;` (sniffed from the header line), UTF-8 with or without BOM,
// RFC 4180 quoting. Yields one record per row with its line number; never holds the file.
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parse, CsvError, type Options } from 'csv-parse';
import { userError } from '../../src/connectors/host/contract.ts';
import { FastCsv, type Handover } from './csv-fast.ts';
import { renameHeader } from './map.ts';
import { utf8Text } from './utf8.ts';

/** A record longer than this is refused (a runaway quote would otherwise swallow the file). */
const MAX_RECORD_BYTES = 1024 * 1024;

/** One data row: the 1-based line of the file where it ends, and its cells in the header's order. */
export interface CsvRow {
  line: number;
  cells: string[];
}

/** Rows parsed from one read of the file, with the header (Product fields, after renames). */
export interface CsvBatch {
  fields: string[];
  rows: CsvRow[];
}

/** `,` or `;`: whichever the header line (outside quotes) has more of; `,` when it has neither. */
export async function sniffDelimiter(file: string): Promise<',' | ';'> {
  const handle = await fs.promises.open(file, 'r');
  try {
    const buf = Buffer.alloc(64 * 1024);
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    const text = buf.subarray(0, bytesRead).toString('utf8');
    let commas = 0;
    let semis = 0;
    let quoted = false;
    for (const ch of text) {
      if (ch === '"') quoted = !quoted;
      else if (!quoted && (ch === '\n' || ch === '\r')) break;
      else if (!quoted && ch === ',') commas++;
      else if (!quoted && ch === ';') semis++;
    }
    return semis > commas ? ';' : ',';
  } finally {
    await handle.close();
  }
}

/** The one-sentence reason of a csv-parse error. */
function explain(error: CsvError): string {
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
    case 'CSV_RECORD_INCONSISTENT_COLUMNS':
      return `The row${at} has a different number of fields than the header (a wrong delimiter or broken quoting).`;
    case 'CSV_MAX_RECORD_SIZE':
      return `The row${at} is longer than 1 MB (probably an unclosed quote).`;
    default:
      return `The CSV could not be read${at}: ${error.message}`;
  }
}

/** The header row -> the Product field of each column; throws a user error for a header without sku or with a field twice. */
function headerFields(header: string[], columns: Record<string, string>): string[] {
  const fields = renameHeader(header, columns);
  if (!fields.includes('sku')) {
    const first = (header[0] ?? '').replace(/^\uFEFF/, '');
    const wrong = header.length === 1 && /[\t|]/.test(first);
    throw userError(wrong
      ? `The header row is one field ("${first.slice(0, 80)}"): the delimiter must be , or ; (tab and | are not read).`
      : `The header row has no sku column (found: ${header.slice(0, 12).join(', ').slice(0, 200)}); rename one with the connector's "columns" option.`);
  }
  const dup = fields.find((f, i) => fields.indexOf(f) !== i);
  if (dup !== undefined) throw userError(`The header row names the field ${dup} twice (after the "columns" renames).`);
  return fields;
}

/**
 * What an object-mode stream holds, a batch at a time: one await per read of the file rather
 * than per row (for await over the stream, then over a generator, made two promises a row).
 */
async function* batches<T>(stream: Readable): AsyncGenerator<T[]> {
  let wake: (() => void) | null = null;
  let ended = false;
  let closed = false;
  let failure: unknown = null;
  const poke = (): void => {
    const w = wake;
    wake = null;
    w?.();
  };
  const onEnd = (): void => {
    ended = true;
    poke();
  };
  const onClose = (): void => {
    closed = true;
    poke();
  };
  const onError = (error: unknown): void => {
    failure ??= error;
    poke();
  };
  stream.on('readable', poke).on('end', onEnd).on('close', onClose).on('error', onError);
  try {
    for (;;) {
      const batch: T[] = [];
      for (let x = stream.read() as T | null; x !== null; x = stream.read() as T | null) batch.push(x);
      if (batch.length > 0) {
        yield batch;
        continue;
      }
      if (failure !== null) throw failure;
      if (ended) return;
      if (closed) throw stream.errored ?? new Error('The file could not be read to its end.');
      await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    stream.off('readable', poke).off('end', onEnd).off('close', onClose).off('error', onError);
  }
}

export interface ReadCsvOptions {
  signal?: AbortSignal;
  /** Bytes per read of the file (tests: records across reads). */
  readBytes?: number;
  /** false: csv-parse reads the whole file (tests compare the fast reading with it). */
  fast?: boolean;
}

/** Where csv-parse starts reading: a Handover of the fast reader, or the file's start. */
type Start = Handover & { bom: boolean };

/**
 * csv-parse's rows from `start` on: its text, then the rest of the file. Lines are the file's
 * (lineOffset added); the first record must be as wide as the header when one was read (csv-parse
 * would take its width from it). Errors are csv-parse's, their lines counted from `start`.
 */
async function* csvParseRows(start: Start, rest: AsyncIterator<Buffer>, utf8: ReturnType<typeof utf8Text>, delimiter: ',' | ';'): AsyncGenerator<CsvRow[]> {
  let checked = start.width === null;
  const options: Options<CsvRow, string[]> = {
    delimiter,
    bom: start.bom,
    ...(start.recordDelimiter === null ? {} : { record_delimiter: start.recordDelimiter }),
    // Only the line is wanted: `info: true` would copy the whole info object per record.
    on_record: (cells, context) => {
      if (!checked) {
        checked = true;
        if (cells.length !== start.width) {
          throw new CsvError('CSV_RECORD_INCONSISTENT_FIELDS_LENGTH', ['Invalid Record Length:', `expect ${start.width},`, `got ${cells.length} on line ${context.lines}`], {} as ConstructorParameters<typeof CsvError>[2], { lines: context.lines });
        }
      }
      return { line: context.lines + start.lineOffset, cells };
    },
    skip_empty_lines: true,
    max_record_size: MAX_RECORD_BYTES,
  };
  async function* text(): AsyncGenerator<string> {
    if (start.text !== '') yield start.text;
    for (;;) {
      const next = await rest.next();
      const t = next.done === true ? utf8.end() : utf8.decode(next.value);
      if (t !== '') yield t;
      if (next.done === true) return;
    }
  }
  // (parse's typing knows no on_record that changes the record's type without `columns`.)
  const parser = parse(options as unknown as Options);
  const done = pipeline(Readable.from(text()), parser).catch((error: unknown) => {
    parser.destroy(error as Error);
  });
  try {
    yield* batches<CsvRow>(parser);
  } finally {
    parser.destroy();
    await done;
  }
}

/**
 * The rows of a CSV file, a batch at a time, with the header as Product fields (after
 * `columns` renames). The header must name `sku`; a header with no `,` or `;` that still holds
 * tabs or pipes is a wrong delimiter, said so. Rows are read by FastCsv (csv-fast.ts) while the
 * file is in its common form, by csv-parse from the first record that is not (the same rows,
 * lines and errors); rows stay arrays of cells.
 */
export async function* readCsv(file: string, columns: Record<string, string>, options: ReadCsvOptions = {}): AsyncGenerator<CsvBatch> {
  const delimiter = await sniffDelimiter(file);
  const source = fs.createReadStream(file, { highWaterMark: options.readBytes ?? 256 * 1024, signal: options.signal });
  const chunks = source[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const utf8 = utf8Text();
  let fields: string[] | null = null;
  let rows = 0;
  /** Rows as a batch; the first row of the file is the header. */
  const batch = (parsed: CsvRow[]): CsvBatch | null => {
    if (fields === null) {
      if (parsed.length === 0) return null;
      fields = headerFields(parsed.shift()!.cells, columns);
    }
    rows += parsed.length;
    return parsed.length > 0 ? { fields, rows: parsed } : null;
  };
  let lineOffset = 0;
  try {
    let start: Start | null = options.fast === false ? { text: '', lineOffset: 0, recordDelimiter: null, width: null, bom: true } : null;
    const fast = new FastCsv(delimiter);
    while (start === null) {
      const next = await chunks.next();
      const out: CsvRow[] = [];
      const going = fast.push(next.done === true ? utf8.end() : utf8.decode(next.value), next.done === true, out);
      const b = batch(out);
      if (b !== null) yield b;
      if (!going) start = { ...fast.handover!, bom: false };
      else if (next.done === true) break;
    }
    if (start !== null) {
      lineOffset = start.lineOffset;
      // csv-parse checks that every row has the header's number of cells.
      for await (const parsed of csvParseRows(start, chunks, utf8, delimiter)) {
        const b = batch(parsed);
        if (b !== null) yield b;
      }
    }
    if (fields === null) throw userError('The file is empty (no header row).');
    if (rows === 0) throw userError('The file has a header row but no product rows.');
  } catch (error) {
    if (error instanceof CsvError) {
      // Lines of the file, not of the part csv-parse read.
      const e = error as CsvError & { lines?: number };
      if (typeof e.lines === 'number') e.lines += lineOffset;
      throw userError(explain(error), { cause: error });
    }
    throw error;
  } finally {
    source.destroy();
  }
}
