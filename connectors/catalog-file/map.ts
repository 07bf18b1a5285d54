// From an ERP's flat record (CSV row, XML element: all text) to a Product of the API: header
// renames (`columns`), text to numbers/integers/booleans per the API's own schema, `images`
// split on "|", and CSV variation rows (with parent_sku) attached to their product.
import { Product, VariationCreate } from '../sdk/index.ts';
import { excerpt } from './utf8.ts';

type Kind = 'number' | 'integer' | 'boolean' | 'string' | 'images' | 'other';

/** Each field's kind, read from the API's schema (so a new field needs no change here). */
function kindsOf(schema: { properties: Record<string, unknown> }): Map<string, Kind> {
  const kinds = new Map<string, Kind>();
  for (const [field, s] of Object.entries(schema.properties)) {
    const t = (s as { type?: string | string[] }).type;
    const first = Array.isArray(t) ? t.find((x) => x !== 'null') : t;
    if (field === 'images') kinds.set(field, 'images');
    else if (first === 'number' || first === 'integer' || first === 'boolean' || first === 'string') kinds.set(field, first);
    else if ((s as { anyOf?: unknown[] }).anyOf !== undefined)
      kinds.set(field, 'string'); // enums
    else kinds.set(field, 'other');
  }
  return kinds;
}

export const productKinds = kindsOf(Product as unknown as { properties: Record<string, unknown> });
export const variationKinds = kindsOf(VariationCreate as unknown as { properties: Record<string, unknown> });

/** The header cell of a file -> the Product field: `columns` first (exact, then ignoring case), else the header itself. */
export function renameHeader(header: string[], columns: Record<string, string>): string[] {
  // Maps, not the options' object: a header `__proto__` or `constructor` is a name like any other.
  const exact = new Map(Object.entries(columns));
  const lower = new Map(Object.entries(columns).map(([k, v]) => [k.toLowerCase(), v]));
  return header.map((raw) => {
    const h = raw.replace(/^\uFEFF/, '').trim();
    return exact.get(h) ?? lower.get(h.toLowerCase()) ?? h;
  });
}

/**
 * Sets a field named by a file (a header, an element) as an own property, `__proto__` too
 * (assigning it would set the object's prototype, or be ignored): validation then sees it.
 */
export function setField(o: Record<string, unknown>, field: string, value: unknown): void {
  if (field === '__proto__') Object.defineProperty(o, field, { value, enumerable: true, writable: true, configurable: true });
  else o[field] = value;
}

const DECIMAL = /^[+-]?(\d+([.,]\d+)?|[.,]\d+)$/;
const INTEGER = /^[+-]?\d+$/;
const TRUE = new Set(['true', '1', 'yes', 'y', 'ja', 'x']);
const FALSE = new Set(['false', '0', 'no', 'n', 'nein', '']);

/**
 * One text value as the API expects it. Text that does not convert stays text, so the API's
 * validation names the field ("must be number") instead of the value silently changing.
 * Decimal commas ("12,50", German ERPs) are read as points.
 */
export function coerce(kind: Kind, text: string): unknown {
  const v = text.trim();
  switch (kind) {
    case 'number':
      return DECIMAL.test(v) ? Number(v.replace(',', '.')) : v;
    case 'integer':
      return INTEGER.test(v) ? Number(v) : v;
    case 'boolean':
      return TRUE.has(v.toLowerCase()) ? true : FALSE.has(v.toLowerCase()) ? false : v;
    case 'images':
      return v
        .split('|')
        .map((u) => u.trim())
        .filter((u) => u !== '');
    default:
      return v;
  }
}

/** A flat record (empty cells dropped) as a product or a variation's fields. Unknown fields pass through (the API warns). */
export function recordToObject(record: Record<string, unknown>, kinds: Map<string, Kind>, keepUnknown: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(record)) {
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string') {
      setField(out, field, value);
      continue;
    }
    if (value.trim() === '') continue;
    const kind = kinds.get(field);
    if (kind === undefined && !keepUnknown) continue;
    setField(out, field, kind === undefined ? value : coerce(kind, value));
  }
  return out;
}

/** One product of a file, with where each of its parts came from (for the report). */
export interface FileProduct {
  product: Record<string, unknown>;
  /** Line (CSV) or element number (XML, JSON) of the product, then of each variation. */
  at: number;
  variationsAt: number[];
}

/** Where a field error of product i points: the variation's own line when the pointer is in one. */
export function lineOf(p: FileProduct, pointer: string): number {
  const m = /^\/variations\/(\d+)/.exec(pointer);
  return m === null ? p.at : (p.variationsAt[Number(m[1])] ?? p.at);
}

/** `o` (keys in sorted order) with `key` added in its sorted place; `o` itself when the key goes last. */
function withSortedKey(o: Record<string, unknown>, key: string, value: unknown): Record<string, unknown> {
  const keys = Object.keys(o);
  if (keys.length === 0 || keys.at(-1)! < key) {
    o[key] = value;
    return o;
  }
  const out: Record<string, unknown> = {};
  let placed = false;
  for (const k of keys) {
    if (!placed && key < k) {
      setField(out, key, value);
      placed = true;
    }
    setField(out, k, o[k]);
  }
  if (!placed) setField(out, key, value);
  return out;
}

/**
 * CSV rows in file order -> products. A row with `parent_sku` is a variation of that product
 * (variation fields only: an ERP repeats the parent's name and so on in child rows). Products
 * are held in `open` until the caller flushes them; a variation whose product was already
 * flushed (or never seen) is an error of its line. Rows are the cells in the header's order.
 */
export class CsvGrouper {
  readonly open = new Map<string, FileProduct>();
  readonly order: FileProduct[] = [];
  /** Per column: its cell, and its kind as a product and as a variation field; in field order, so products come out canonical (contentHash then skips sorting their keys). */
  readonly #plan: { field: string; cell: number; product: Kind | undefined; variation: Kind | undefined }[];
  readonly #parent: number;

  /** `fields`: the header, as Product fields (after `columns` renames). */
  constructor(fields: string[]) {
    this.#parent = fields.indexOf('parent_sku');
    this.#plan = fields
      .map((field, cell) => ({ field, cell, product: productKinds.get(field), variation: variationKinds.get(field) }))
      .filter((c) => c.field !== 'parent_sku')
      .sort((a, b) => (a.field < b.field ? -1 : 1));
  }

  /** True when the row is a product row (not a variation), so a chunk may end before it. */
  startsProduct(cells: string[]): boolean {
    return this.#parent === -1 || (cells[this.#parent] ?? '').trim() === '';
  }

  add(cells: string[], line: number): { error?: string; sku?: string } {
    const parent = this.#parent === -1 ? '' : (cells[this.#parent] ?? '').trim();
    const isProduct = parent === '';
    const out: Record<string, unknown> = {};
    for (const { field, cell, product, variation } of this.#plan) {
      const text = cells[cell];
      if (text === undefined || text === '') continue;
      const kind = isProduct ? product : variation;
      // Product rows keep unknown columns (the API warns); variation rows keep variation fields only.
      if (kind === undefined) {
        if (isProduct && text.trim() !== '') setField(out, field, text.trim());
        continue;
      }
      const v = coerce(kind, text);
      if (v !== '') setField(out, field, v);
    }
    if (isProduct) {
      const fp: FileProduct = { product: out, at: line, variationsAt: [] };
      this.order.push(fp);
      if (typeof out.sku === 'string') this.open.set(out.sku, fp);
      return {};
    }
    const owner = this.open.get(parent);
    if (owner === undefined) {
      return {
        sku: typeof out.sku === 'string' ? out.sku : undefined,
        error: `parent_sku ${excerpt(parent)} is not a product row above this one (variation rows must follow their product, within 1,000 products)`,
      };
    }
    if (owner.product.variations === undefined) owner.product = withSortedKey(owner.product, 'variations', []);
    (owner.product.variations as unknown[]).push(out);
    owner.variationsAt.push(line);
    return {};
  }

  /** Takes the products gathered so far. */
  take(): FileProduct[] {
    const out = this.order.splice(0, this.order.length);
    this.open.clear();
    return out;
  }
}
