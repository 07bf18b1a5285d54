// An Akeneo PIM product (REST API: GET /api/rest/v1/products, /product-models/{code}) as a
// waybill product. Akeneo's attributes are the catalog's own codes, so the table below names
// which attribute codes fill which waybill fields (defaults, overridden by the `attributes`
// option); every other simple value becomes a category attribute under its code. A product
// model is the waybill product; its variant products are the variations.
import type { PulledProduct } from '../sdk/index.ts';

/** waybill field <- Akeneo attribute code (the first code present wins). */
export const DEFAULT_ATTRIBUTES: Readonly<Record<string, readonly string[]>> = {
  name: ['name', 'title', 'label'],
  description: ['description'],
  short_description: ['short_description'],
  price: ['price'],
  stock: ['stock', 'quantity'],
  brand: ['brand'],
  weight: ['weight'],
  images: ['image', 'images', 'picture', 'main_image', 'image_1', 'image_2', 'image_3'],
};

/** Fields a variation carries (the rest belong to its product). */
const VARIATION_FIELDS = new Set(['price', 'stock', 'images', 'color', 'size', 'availability', 'discount', 'condition']);

export interface AkeneoValue {
  locale: string | null;
  scope: string | null;
  data: unknown;
  _links?: { download?: { href?: string } };
}
export interface AkeneoProduct {
  identifier: string;
  enabled: boolean;
  family?: string | null;
  parent?: string | null;
  categories?: string[];
  values: Record<string, AkeneoValue[]>;
  updated?: string;
}
export interface AkeneoModel {
  code: string;
  parent: string | null;
  values: Record<string, AkeneoValue[]>;
  updated?: string;
}

export interface AkeneoMapOptions {
  locale?: string;
  scope?: string;
  currency?: string;
  /** Overrides of DEFAULT_ATTRIBUTES: waybill field -> attribute code. */
  attributes?: Record<string, string>;
}

/** The value for the options' locale and channel (scope); a value without one applies to all. */
function pick(values: AkeneoValue[] | undefined, o: AkeneoMapOptions): AkeneoValue | undefined {
  return values?.find(
    (v) =>
      (v.locale === null || o.locale === undefined || v.locale === o.locale) &&
      (v.scope === null || o.scope === undefined || v.scope === o.scope),
  );
}

function plain(v: AkeneoValue, field: string, o: AkeneoMapOptions): unknown {
  const d = v.data;
  if (field === 'images') return v._links?.download?.href;
  // A price collection [{amount, currency}]: the option's currency, else the first.
  if (Array.isArray(d) && d.every((x) => typeof x === 'object' && x !== null && 'amount' in x)) {
    const price = (d as { amount: string | number | null; currency: string }[]).find(
      (x) => o.currency === undefined || x.currency === o.currency,
    );
    return price?.amount === null || price?.amount === undefined ? undefined : Number(price.amount);
  }
  // A metric {amount, unit}: the amount.
  if (typeof d === 'object' && d !== null && !Array.isArray(d) && 'amount' in d) return Number((d as { amount: unknown }).amount);
  if (Array.isArray(d)) return d.every((x) => typeof x === 'string') ? d.join(', ') : undefined;
  if (field === 'price' || field === 'stock' || field === 'weight') return typeof d === 'string' && d.trim() !== '' ? Number(d) : d;
  return typeof d === 'string' || typeof d === 'number' || typeof d === 'boolean' ? d : undefined;
}

/** The waybill fields of one set of Akeneo values. */
export function mapValues(values: Record<string, AkeneoValue[]>, o: AkeneoMapOptions): Record<string, unknown> {
  const codeOf = new Map<string, string>();
  for (const [field, codes] of Object.entries(DEFAULT_ATTRIBUTES)) {
    const code = o.attributes?.[field] ?? codes.find((c) => values[c] !== undefined);
    if (code !== undefined) codeOf.set(code, field);
  }
  const out: Record<string, unknown> = {};
  for (const [code, list] of Object.entries(values)) {
    const field = codeOf.get(code) ?? code;
    const v = pick(list, o);
    if (v === undefined) continue;
    const value = plain(v, field, o);
    if (value === undefined || value === null || value === '') continue;
    if (field === 'images') out.images = [...((out.images as string[] | undefined) ?? []), value];
    else out[field] = value;
  }
  if (typeof out.stock === 'number') out.stock = Math.max(0, Math.trunc(out.stock));
  return out;
}

/** A product without a model: itself. Stock defaults to 0 (a PIM rarely holds stock). */
export function mapAkeneoProduct(p: AkeneoProduct, o: AkeneoMapOptions): PulledProduct {
  const product = { stock: 0, ...mapValues(p.values, o), sku: p.identifier };
  return { product, deleted: !p.enabled, updatedAt: p.updated ?? null };
}

/**
 * A root product model and all its variant products (those of its sub-models too): the model's
 * code is the sku, its values the product's, each variant a variation (its own price, stock,
 * images and axes; the API gives a variant its models' values as well). Deleted when every
 * variant is disabled.
 */
export function mapAkeneoModel(root: AkeneoModel, variants: AkeneoProduct[], o: AkeneoMapOptions): PulledProduct {
  const own = mapValues(root.values, o);
  const variations = variants
    .filter((v) => v.enabled)
    .map((v) => {
      const all = mapValues(v.values, o);
      const mine = Object.fromEntries(Object.entries(all).filter(([k]) => VARIATION_FIELDS.has(k) || !(k in own)));
      return { stock: 0, ...mine, sku: v.identifier };
    });
  const first: Record<string, unknown> = variations[0] ?? {};
  const product: Record<string, unknown> = {
    ...own,
    sku: root.code,
    price: own.price ?? first.price,
    stock: variations.reduce((n, v) => n + (typeof v.stock === 'number' ? v.stock : 0), 0),
  };
  if (variations.length > 0) product.variations = variations;
  const times = [root, ...variants]
    .map((x) => x.updated)
    .filter((t): t is string => typeof t === 'string')
    .sort((a, b) => Date.parse(a) - Date.parse(b));
  return { product, deleted: variations.length === 0, updatedAt: times.at(-1) ?? null };
}
