// Documents (XML, JSON, JSON Lines) as SourceRows: the items at `item_path`, each flattened to
// (name, text) fields, handed over in batches while the file is streamed (one chunk of the
// file and the items completed in it are held at a time). An item that cannot be read (not
// well-formed, an undefined entity, over the size cap) is reported through `onItemError` with
// its line, and the items after it are read.
import fs from 'node:fs';
import readline from 'node:readline';
import { Readable } from 'node:stream';
import { TokenizerError } from '@streamparser/json';
import { userError } from '../sdk/index.ts';
import { flattenItem } from './flatten.ts';
import { JsonItems } from './read-json-items.ts';
import { XmlItems, type ItemError } from './read-xml-items.ts';
import type { SourceRow } from './row.ts';
import { checkUtf8 } from './utf8.ts';

export type { ItemError } from './read-xml-items.ts';

export interface DocumentOptions {
  format: 'xml' | 'json' | 'jsonl';
  /**
   * Where the items are. XML: element names from the root, dotted (`rss.channel.item`).
   * JSON: keys to the items' array (`_embedded.items`); '' = the document (an array: each element).
   * JSON Lines: not used (every line is an item).
   */
  item_path: string;
  /** Akeneo values: the locale and channel to read (defaults en_US, ecommerce); null-locale/scope entries fit any. */
  locale?: string;
  scope?: string;
  /** XML: prefix -> namespace URI, e.g. `{g: 'http://base.google.com/ns/1.0'}`. */
  namespaces?: Record<string, string>;
  /** An item larger than this is an error of that item (default 1 MiB). */
  max_item_bytes?: number;
  /** Rows per batch (default 500). */
  batch_size?: number;
  /** Called for each item that could not be read; without it the first such item stops the read (a user error). */
  onItemError?: (error: ItemError) => void;
  signal?: AbortSignal;
}

const MiB = 1024 * 1024;

interface Sink {
  rows: SourceRow[];
  errors: ItemError[];
}

/** Hands over what a push parser found: item errors to the callback, rows in batches of `size`. */
function* drain(sink: Sink, opts: DocumentOptions, size: number, all: boolean): Generator<SourceRow[]> {
  for (const e of sink.errors.splice(0)) {
    if (opts.onItemError === undefined) throw userError(`The item at line ${e.line} could not be read: ${e.message}`);
    opts.onItemError(e);
  }
  while (sink.rows.length >= size || (all && sink.rows.length > 0)) yield sink.rows.splice(0, size);
}

/** A path, or a stream of the file's bytes (an inbox file's open handle). */
export type DocumentSource = string | Readable;

function stream(file: DocumentSource, signal?: AbortSignal): AsyncIterable<Buffer> {
  return checkUtf8(typeof file === 'string' ? fs.createReadStream(file, { highWaterMark: 256 * 1024, signal }) : file);
}

async function* readXml(file: DocumentSource, opts: DocumentOptions, size: number): AsyncGenerator<SourceRow[]> {
  const items = new XmlItems({ item_path: opts.item_path, namespaces: opts.namespaces, max_item_bytes: opts.max_item_bytes ?? MiB });
  const decoder = new TextDecoder('utf-8', { ignoreBOM: false });
  let failure: unknown = null;
  try {
    for await (const chunk of stream(file, opts.signal)) {
      items.write(decoder.decode(chunk, { stream: true }));
      yield* drain(items, opts, size, false);
    }
    items.write(decoder.decode());
    items.end();
  } catch (error) {
    failure = error;
  }
  // Items read before a document-level error are handed over, then the error.
  yield* drain(items, opts, size, true);
  if (failure !== null) throw failure;
}

async function* readJson(file: DocumentSource, opts: DocumentOptions, size: number): AsyncGenerator<SourceRow[]> {
  const items = new JsonItems({
    item_path: opts.item_path,
    locale: opts.locale ?? 'en_US',
    scope: opts.scope ?? 'ecommerce',
    max_item_bytes: opts.max_item_bytes ?? MiB,
  });
  let failure: unknown = null;
  try {
    for await (const chunk of stream(file, opts.signal)) {
      items.write(chunk);
      yield* drain(items, opts, size, false);
    }
    items.end();
  } catch (error) {
    failure = error instanceof TokenizerError ? userError(items.explain(error), { cause: error }) : error;
  }
  yield* drain(items, opts, size, true);
  if (failure !== null) throw failure;
}

/** JSON Lines: one item per line; an empty line is skipped, a line that is not JSON is that item's error. */
async function* readJsonLines(file: DocumentSource, opts: DocumentOptions, size: number): AsyncGenerator<SourceRow[]> {
  const want = { locale: opts.locale ?? 'en_US', scope: opts.scope ?? 'ecommerce' };
  const max = opts.max_item_bytes ?? MiB;
  const sink: Sink = { rows: [], errors: [] };
  const lines = readline.createInterface({ input: Readable.from(stream(file, opts.signal)), crlfDelay: Infinity });
  let line = 0;
  for await (const text of lines) {
    line++;
    const body = line === 1 ? text.replace(/^\uFEFF/, '') : text;
    if (body.trim() === '') continue;
    if (body.length > max) sink.errors.push({ line, message: `The item is larger than ${max} characters.` });
    else {
      try {
        sink.rows.push({ line, fields: flattenItem(JSON.parse(body), want) });
      } catch (error) {
        sink.errors.push({ line, message: (error as Error).message });
      }
    }
    yield* drain(sink, opts, size, false);
  }
  yield* drain(sink, opts, size, true);
}

/**
 * Reads the items of an XML, JSON or JSON Lines file as SourceRows (`line` = where the item
 * starts), in batches of `batch_size`. Throws a user error for a file that cannot be read on
 * (not UTF-8, not well-formed outside the items), after handing over the items before it.
 */
export async function* readDocumentRows(file: DocumentSource, opts: DocumentOptions): AsyncGenerator<SourceRow[]> {
  const size = opts.batch_size ?? 500;
  let found = 0;
  const counted: DocumentOptions =
    opts.onItemError === undefined
      ? opts
      : {
          ...opts,
          onItemError: (e) => {
            found++;
            opts.onItemError!(e);
          },
        };
  const read = opts.format === 'xml' ? readXml : opts.format === 'json' ? readJson : readJsonLines;
  for await (const batch of read(file, counted, size)) {
    found += batch.length;
    yield batch;
  }
  if (found === 0) {
    throw userError(
      opts.format === 'jsonl'
        ? 'The file holds no items (every line is empty).'
        : `The file has no items at "${opts.item_path}" (the item_path option).`,
    );
  }
}
