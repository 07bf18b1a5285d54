// JSON: the body of the products POST (one Product or an array of them). The file is read as
// a stream of tokens, twice, so that no step holds the event loop for the whole document:
// once to check that all of it is JSON (a file that is not is refused with nothing sent),
// then product by product, handed over in batches.
import { TokenizerError } from '@streamparser/json';
import { userError } from '../sdk/index.ts';
import { streamOf, type InboxFile } from './inbox.ts';
import type { FileProduct } from './map.ts';
import { JsonItems } from './read-json-items.ts';
import { checkUtf8 } from './utf8.ts';

const READ_BYTES = 256 * 1024;

/**
 * Streams the file through a JsonItems of the whole document (an array: its elements),
 * handing it over after every chunk (the caller takes its rows), and once more at the end.
 */
async function* pass<T>(file: InboxFile, row: (value: unknown, line: number) => T, signal?: AbortSignal): AsyncGenerator<JsonItems<T>> {
  // No cap per element beyond the file's own (max_document_bytes).
  const items = new JsonItems<T>({ item_path: '', locale: '', scope: '', max_item_bytes: file.size + 1 }, row);
  try {
    for await (const chunk of checkUtf8(streamOf(file, READ_BYTES, signal))) {
      items.write(chunk);
      yield items;
    }
    items.end();
  } catch (error) {
    if (error instanceof TokenizerError) throw userError(items.explain(error), { cause: error });
    throw error;
  }
  // An element that is not JSON (the tokens are, their order is not) is the file's error too.
  const [bad] = items.errors;
  if (bad !== undefined) {
    // The token parser's "Line 5: Unexpected RIGHT_BRACE ("}") in state VALUE", said as the tokenizer's errors are.
    const [, line, token] = /^Line (\d+): .*?\(("[^"]*")\)/.exec(bad.message) ?? [];
    throw userError(`The JSON is not valid at line ${line ?? bad.line}: ${token === undefined ? bad.message : `unexpected ${token}.`}`);
  }
  yield items;
}

/** The products of a JSON file, in batches of `size`; a file that is not JSON, or not products, is refused before any batch. */
export async function* readJson(file: InboxFile, size: number, signal?: AbortSignal): AsyncGenerator<FileProduct[]> {
  let count = 0;
  let kind = '';
  let root: JsonItems<void>['root'] = null;
  const check = (value: unknown): void => {
    count++;
    kind = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  };
  for await (const items of pass(file, check, signal)) {
    root = items.root;
    items.rows.length = 0;
  }
  if (root === null) throw userError('The file is empty.');
  if (root === 'value' && kind !== 'object')
    throw userError(`The JSON is ${kind === 'null' ? 'null' : `a ${kind}`}, not an array or object of products.`);
  if (count === 0) throw userError('The JSON array is empty: it holds no products.');
  // Element numbers are 1-based, as people count; pointers in the report stay per product.
  let at = 0;
  const product = (value: unknown): FileProduct => ({ product: value as Record<string, unknown>, at: ++at, variationsAt: [] });
  let rows: FileProduct[] = [];
  for await (const items of pass(file, product, signal)) {
    rows = items.rows;
    while (rows.length >= size) yield rows.splice(0, size);
  }
  if (rows.length > 0) yield rows.splice(0);
}
