// XML: <products><product><sku>..</sku>...<images><image>url</image></images>
// <variations><variation>..</variation></variations></product></products>. Entity
// processing is off and any DOCTYPE is refused (no entity expansion: no XML bomb, no XXE).
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { userError } from '../sdk/index.ts';
import { readWhole, type InboxFile } from './inbox.ts';
import { productKinds, recordToObject, renameHeader, variationKinds, type FileProduct } from './map.ts';
import { clip, decodeUtf8, excerpt } from './utf8.ts';

const LISTS = new Set([
  'products.product',
  'products.product.images.image',
  'products.product.variations.variation',
  'products.product.variations.variation.images.image',
]);

/**
 * Element names the parser refuses or renames (they are Object.prototype's): kept under a
 * "#" name no XML element can have while parsing, and given back their own name as a field.
 */
const RESERVED = new Set([
  '__proto__',
  'constructor',
  'prototype',
  'hasOwnProperty',
  'toString',
  'valueOf',
  '__defineGetter__',
  '__defineSetter__',
  '__lookupGetter__',
  '__lookupSetter__',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toLocaleString',
]);
const RESERVED_MARK = '#name:';
const hideReserved = (name: string): string => (RESERVED.has(name) ? `${RESERVED_MARK}${name}` : name);
const ownName = (key: string): string => (key.startsWith(RESERVED_MARK) ? key.slice(RESERVED_MARK.length) : key);

const parser = new XMLParser({
  transformTagName: hideReserved,
  processEntities: false,
  htmlEntities: false,
  ignoreAttributes: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  parseTagValue: false,
  trimValues: true,
  isArray: (_name, jpath) => LISTS.has(String(jpath)),
});

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
  const fields = renameHeader(keys.map(ownName), columns);
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

/** The standard's five entities, the only ones a file may use (entity processing stays off). */
const unescape = (v: unknown): unknown => {
  if (typeof v === 'string')
    return v.replace(/&(lt|gt|quot|apos|amp);/g, (_m, e: string) => ({ lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' })[e]!);
  if (Array.isArray(v)) return v.map(unescape);
  if (isObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, unescape(x)]));
  return v;
};

export async function readXml(file: InboxFile, columns: Record<string, string> = {}): Promise<FileProduct[]> {
  const text = decodeUtf8(await readWhole(file));
  if (text.trim() === '') throw userError('The file is empty.');
  if (/<!DOCTYPE/i.test(text) || /<!ENTITY/i.test(text)) {
    throw userError('The XML has a DOCTYPE or ENTITY declaration, which is refused (entity expansion is off: no XML bombs).');
  }
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw userError(`The XML is not well-formed at line ${valid.err.line}: ${clip(valid.err.msg, 160)}`);
  const doc = parser.parse(text) as Record<string, unknown>;
  if (!Object.hasOwn(doc, 'products'))
    throw userError(`The XML root element must be <products> (found ${excerpt(ownName(Object.keys(doc)[0] ?? 'nothing'))}).`);
  const root = doc.products;
  const list = isObject(root) && Array.isArray(root.product) ? root.product : [];
  if (list.length === 0) throw userError('The XML has no <product> elements.');
  return list.map((p, i) => ({ product: element(unescape(p), productKinds, true, columns), at: i + 1, variationsAt: [] }));
}
