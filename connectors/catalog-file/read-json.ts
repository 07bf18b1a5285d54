// JSON: the body of the products POST (one Product or an array of them), read whole: such a
// file is one document. Files over max_document_bytes are refused before reading.
import { userError } from '../sdk/index.ts';
import { readWhole, type InboxFile } from './inbox.ts';
import type { FileProduct } from './map.ts';
import { clip, decodeUtf8 } from './utf8.ts';

export async function readJson(file: InboxFile): Promise<FileProduct[]> {
  const text = decodeUtf8(await readWhole(file));
  if (text.trim() === '') throw userError('The file is empty.');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw userError(`The file is not valid JSON: ${clip((error as Error).message, 160)}.`);
  }
  const what = body === null ? 'null' : Array.isArray(body) ? 'array' : typeof body;
  if (what !== 'array' && what !== 'object')
    throw userError(`The JSON is ${what === 'null' ? 'null' : `a ${what}`}, not an array or object of products.`);
  const items = Array.isArray(body) ? body : [body];
  if (items.length === 0) throw userError('The JSON array is empty: it holds no products.');
  // Element numbers are 1-based, as people count; pointers in the report stay per product.
  return items.map((product, i) => ({ product: product as Record<string, unknown>, at: i + 1, variationsAt: [] }));
}
