// XML: <products><product><sku>..</sku>...<images><image>url</image></images>
// <variations><variation>..</variation></variations></product></products>. Read as a stream
// (saxes), twice, so that no step holds the event loop for the whole document: once to check
// that all of it is well-formed (a file that is not is refused with nothing sent), then
// product by product. Any DOCTYPE is refused (no entity expansion: no XML bomb, no XXE); only
// the five standard entities and character references are read.
import { SaxesParser, type SaxesTag } from 'saxes';
import { userError } from '../sdk/index.ts';
import { streamOf, type InboxFile } from './inbox.ts';
import { productKinds, recordToObject, renameHeader, variationKinds, type FileProduct } from './map.ts';
import { checkUtf8, clip, excerpt } from './utf8.ts';

const LISTS = new Set([
  'products.product',
  'products.product.images.image',
  'products.product.variations.variation',
  'products.product.variations.variation.images.image',
]);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `<images><image>url</image></images>` (or `<image><url>..</url></image>`) -> address strings. */
function images(value: unknown): unknown {
  if (!isObject(value)) return value === '' ? undefined : value;
  const list = value.image;
  if (!Array.isArray(list)) return [];
  return list.map((i) => (isObject(i) && typeof i.url === 'string' ? i.url : i));
}

/** Element names renamed by the connector's `columns` (exact, then ignoring case). */
function renamed(value: Record<string, unknown>, columns: Record<string, string>): Record<string, unknown> {
  const keys = Object.keys(value);
  const fields = renameHeader(keys, columns);
  // fromEntries defines own properties: `__proto__` stays a field (validation drops it, with a warning).
  return Object.fromEntries(keys.map((k, i) => [fields[i]!, value[k]]));
}

function element(
  value: unknown,
  kinds: typeof productKinds,
  keepUnknown: boolean,
  columns: Record<string, string>,
): Record<string, unknown> {
  if (!isObject(value)) return {};
  const { images: imgs, variations, ...rest } = renamed(value, columns);
  const out = recordToObject(rest, kinds, keepUnknown);
  const list = images(imgs);
  if (list !== undefined) out.images = list;
  if (variations !== undefined && kinds === productKinds) {
    const vs = isObject(variations) && Array.isArray(variations.variation) ? variations.variation : [];
    out.variations = vs.map((v) => element(v, variationKinds, true, columns));
  }
  return out;
}

const READ_BYTES = 256 * 1024;
const DOCTYPE = 'The XML has a DOCTYPE or ENTITY declaration, which is refused (entity expansion is off: no XML bombs).';

/** An element being read: its children by name (null prototype: any name is a plain key), or its text. */
interface Open {
  name: string;
  path: string;
  children: Record<string, unknown> | null;
  text: string;
}

/**
 * Streams the file through saxes, building each <product> below <products> as an object
 * (an element with children: an object of them, a name met twice or a LISTS path: an array;
 * else its trimmed text; attributes are not read). Hands over the products made so far after
 * every chunk (the caller takes them), and once more at the end.
 */
async function* pass(file: InboxFile, signal?: AbortSignal): AsyncGenerator<Record<string, unknown>[]> {
  const products: Record<string, unknown>[] = [];
  const stack: Open[] = [];
  const parser = new SaxesParser({ position: true });
  let root: string | null = null;
  let failure: Error | null = null;
  const fail = (error: Error): void => void (failure ??= error);
  parser.on('doctype', () => fail(userError(DOCTYPE)));
  parser.on('error', (e) =>
    fail(userError(`The XML is not well-formed at line ${parser.line}: ${clip(e.message.replace(/^\d+:\d+: /, ''), 160)}`)),
  );
  parser.on('opentag', (tag: SaxesTag) => {
    if (root === null) {
      root = tag.name;
      if (root !== 'products') fail(userError(`The XML root element must be <products> (found ${excerpt(root)}).`));
    }
    const parent = stack.at(-1);
    if (parent !== undefined && parent.children === null) parent.children = Object.create(null) as Record<string, unknown>;
    stack.push({ name: tag.name, path: parent === undefined ? tag.name : `${parent.path}.${tag.name}`, children: null, text: '' });
  });
  const text = (t: string): void => {
    const top = stack.at(-1);
    if (top !== undefined && top.children === null && stack.length > 2) top.text += t;
  };
  parser.on('text', text);
  parser.on('cdata', text);
  parser.on('closetag', () => {
    const done = stack.pop()!;
    const parent = stack.at(-1);
    if (parent === undefined) return;
    const value = done.children ?? done.text.trim();
    if (done.path === 'products.product') return void products.push(isObject(value) ? value : {});
    if (stack.length < 2) return;
    // Values are text or objects: an array here is a list, made by a LISTS path or a repeat.
    const siblings = parent.children!;
    const had = siblings[done.name];
    if (had === undefined) siblings[done.name] = LISTS.has(done.path) ? [value] : value;
    else if (Array.isArray(had)) had.push(value);
    else siblings[done.name] = [had, value];
  });
  const decoder = new TextDecoder('utf-8', { ignoreBOM: false });
  for await (const chunk of checkUtf8(streamOf(file, READ_BYTES, signal))) {
    parser.write(decoder.decode(chunk, { stream: true }));
    if (failure !== null) throw failure;
    yield products;
  }
  parser.write(decoder.decode());
  if (root === null && failure === null) throw userError('The file is empty.');
  parser.close();
  if (failure !== null) throw failure;
  yield products;
}

/** The products of an XML file, in batches of `size`; a file that is not well-formed, or has no <product>, is refused before any batch. */
export async function* readXml(
  file: InboxFile,
  size: number,
  columns: Record<string, string> = {},
  signal?: AbortSignal,
): AsyncGenerator<FileProduct[]> {
  let count = 0;
  for await (const products of pass(file, signal)) count += products.splice(0).length;
  if (count === 0) throw userError('The XML has no <product> elements.');
  let at = 0;
  const rows: FileProduct[] = [];
  for await (const products of pass(file, signal)) {
    for (const p of products.splice(0)) rows.push({ product: element(p, productKinds, true, columns), at: ++at, variationsAt: [] });
    while (rows.length >= size) yield rows.splice(0, size);
  }
  if (rows.length > 0) yield rows.splice(0);
}
