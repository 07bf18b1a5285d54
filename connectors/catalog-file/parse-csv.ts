// CSV, streamed: `,` or `;` (sniffed from the header line), UTF-8 with or without BOM,
// RFC 4180 quoting. Yields one record per row with its line number; never holds the file.
import fs from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { parse, CsvError, type Options } from 'csv-parse';
import { userError } from '../../src/connectors/host/contract.ts';
import { renameHeader } from './map.ts';
import { utf8Decoder } from './utf8.ts';

/** A record longer than this is refused (a runaway quote would otherwise swallow the file). */
const MAX_RECORD_BYTES = 1024 * 1024;

export interface CsvRow {
  /** 1-based line of the file where the row ends. */
  line: number;
  record: Record<string, string>;
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

/** One parsed row: its cells, and the file's line where it ends. */
interface Cells { line: number; cells: string[] }

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
 * Rows of a CSV file as records keyed by Product field (after `columns` renames). The header
 * must name `sku`; a header with no `,` or `;` that still holds tabs or pipes is a wrong
 * delimiter, said so.
 */
export async function* readCsv(file: string, columns: Record<string, string>, signal?: AbortSignal): AsyncGenerator<CsvRow> {
  const delimiter = await sniffDelimiter(file);
  // csv-parse hands out each row as an array (its `columns` option builds every record with
  // Object.defineProperty, which doubled the parse's cost); the records are made here, with
  // plain assignments in header order, so they all share one shape.
  let fields: string[] | null = null;
  let rows = 0;
  const options: Options<Cells, string[]> = {
    delimiter,
    bom: true,
    // Only the line is wanted: `info: true` would copy the whole info object per record.
    on_record: (cells, context) => ({ line: context.lines, cells }),
    skip_empty_lines: true,
    max_record_size: MAX_RECORD_BYTES,
  };
  // (parse's typing knows no on_record that changes the record's type without `columns`.)
  const parser = parse(options as unknown as Options);
  const source = fs.createReadStream(file, { highWaterMark: 256 * 1024 });
  const done = pipeline(source, utf8Decoder(), parser, { signal }).catch((error: unknown) => {
    parser.destroy(error as Error);
  });
  try {
    for await (const { line, cells } of parser as AsyncIterable<Cells>) {
      if (fields === null) {
        fields = headerFields(cells, columns);
        continue;
      }
      const record: Record<string, string> = {};
      // csv-parse checks every row has the header's number of fields.
      for (let i = 0; i < fields.length; i++) record[fields[i]!] = cells[i]!;
      rows++;
      yield { line, record };
    }
    if (fields === null) throw userError('The file is empty (no header row).');
    if (rows === 0) throw userError('The file has a header row but no product rows.');
  } catch (error) {
    if (error instanceof CsvError) throw userError(explain(error), { cause: error });
    throw error;
  } finally {
    source.destroy();
    await done;
  }
}
