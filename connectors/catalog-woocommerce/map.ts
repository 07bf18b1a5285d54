// A WooCommerce product (REST API v3, GET /wp-json/wc/v3/products and .../variations) as a
// waybill product. The field tables are data: the same names a WooCommerce CSV export's preset
// maps (its columns are these fields under their export headers), and the rules both share
// (option names, sale -> discount, a parent's price and stock) are the SDK's catalog rules: a
// product exported as CSV and pulled from the API is the same stored product.
import { discountOf, fillFromVariations, mapFields, optionField, type FieldRule, type PulledProduct } from '../sdk/index.ts';

/** WooCommerce stock_status -> waybill availability. */
export const STOCK_STATUS: Record<string, string> = { instock: 'in_stock', outofstock: 'out_of_stock', onbackorder: 'preorder' };

/** Fields a product and a variation share. */
const COMMON: FieldRule[] = [
  { to: 'sku', from: 'sku', as: 'text' },
  // regular_price is the list price; `price` is what the shop charges now (the sale price during a sale).
  { to: 'price', from: ['regular_price', 'price'], as: 'number' },
  { to: 'discount_from', from: 'date_on_sale_from_gmt', as: 'utc' },
  { to: 'discount_to', from: 'date_on_sale_to_gmt', as: 'utc' },
  { to: 'stock', from: 'stock_quantity', as: 'count' },
  { to: 'availability', from: 'stock_status', values: STOCK_STATUS },
  { to: 'weight', from: 'weight', as: 'number' },
  { to: 'width', from: 'dimensions.width', as: 'number' },
  { to: 'height', from: 'dimensions.height', as: 'number' },
  { to: 'depth', from: 'dimensions.length', as: 'number' },
];

export const PRODUCT_FIELDS: readonly FieldRule[] = [
  ...COMMON,
  { to: 'name', from: 'name', as: 'text' },
  { to: 'description', from: 'description', as: 'text' },
  { to: 'short_description', from: 'short_description', as: 'text' },
  { to: 'images', from: 'images', as: 'images' },
];

/** Taxonomies named by their terms (`[{id, name, slug}]`), joined as the CSV export writes them ("linen, summer"). */
const TERMS: Record<string, string> = { categories: 'categories', tags: 'tags', brands: 'brand' };

export const VARIATION_FIELDS: readonly FieldRule[] = [...COMMON, { to: 'images', from: 'image', as: 'images' }];

export interface WooAttribute {
  name: string;
  option?: string;
  options?: string[];
  variation?: boolean;
}
export interface WooVariation {
  id: number;
  attributes?: WooAttribute[];
  [field: string]: unknown;
}
export interface WooProduct {
  id: number;
  type: string;
  status: string;
  sku?: string;
  date_modified_gmt?: string | null;
  attributes?: WooAttribute[];
  [field: string]: unknown;
}

export interface WooMapOptions {
  weight_unit?: string;
  dimensions_unit?: string;
}

const attributeKey = (name: string): string => optionField(name.replace(/^pa_/i, ''));

function terms(product: WooProduct): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [from, to] of Object.entries(TERMS)) {
    const list = product[from];
    const names = Array.isArray(list)
      ? list.map((t) => (t as { name?: unknown } | null)?.name).filter((n) => typeof n === 'string' && n !== '')
      : [];
    if (names.length > 0) out[to] = names.join(', ');
  }
  return out;
}

/**
 * A sale (`sale_price` under `regular_price`) as the discount, with its dates; without a sale
 * the dates are left out. `price` is then the regular price.
 */
function withSale(m: Record<string, unknown>, source: Record<string, unknown>): Record<string, unknown> {
  const regular = Number(source.regular_price);
  const sale = typeof source.sale_price === 'string' && source.sale_price.trim() !== '' ? Number(source.sale_price) : NaN;
  const pct = Number.isFinite(regular) && Number.isFinite(sale) ? discountOf(regular, sale) : null;
  if (typeof pct === 'number') m.discount = pct;
  else {
    delete m.discount_from;
    delete m.discount_to;
  }
  return m;
}

function attributes(list: WooAttribute[] | undefined, which: 'product' | 'variation'): Record<string, string> {
  const out: Record<string, string> = {};
  for (const a of list ?? []) {
    // A product's variation attributes list every option; each variation names its own.
    if (which === 'product' && a.variation === true) continue;
    const value = which === 'variation' ? a.option : a.options?.join(', ');
    if (typeof value === 'string' && value !== '') out[attributeKey(a.name)] = value;
  }
  return out;
}

/** Units apply where a weight or dimension is given (WooCommerce keeps them as store settings). */
function withUnits(p: Record<string, unknown>, o: WooMapOptions): Record<string, unknown> {
  if (p.weight !== undefined && o.weight_unit !== undefined) p.weight_unit = o.weight_unit;
  if ((p.width ?? p.height ?? p.depth) !== undefined && o.dimensions_unit !== undefined) p.dimensions_unit = o.dimensions_unit;
  return p;
}

/** A product without a SKU is known by its WooCommerce id ("woo-123"): waybill needs one. */
const skuOf = (mapped: Record<string, unknown>, id: number): string => (typeof mapped.sku === 'string' ? mapped.sku : `woo-${id}`);

export function mapWooProduct(product: WooProduct, variations: WooVariation[], o: WooMapOptions = {}): PulledProduct {
  const own = mapFields(product, PRODUCT_FIELDS);
  // A variable product's `price` is WooCommerce's display price (its cheapest variation's, on sale
  // or not): its price and stock come from its variations, as a CSV export's parent row's do.
  if (product.type === 'variable') delete own.price;
  const p = withUnits({ ...withSale(own, product), ...terms(product), ...attributes(product.attributes, 'product') }, o);
  p.sku = skuOf(p, product.id);
  if (variations.length > 0) {
    const vs = variations.map((v) => {
      const m = withUnits({ ...withSale(mapFields(v, VARIATION_FIELDS), v), ...attributes(v.attributes, 'variation') }, o);
      m.sku = skuOf(m, v.id);
      m.stock ??= 0;
      return m;
    });
    fillFromVariations(p, vs);
    p.variations = vs;
  }
  // Unmanaged stock (stock_quantity null) says only in or out of stock.
  p.stock ??= 0;
  return {
    product: p,
    // Trash is WooCommerce's deletion (a product deleted for good is no longer listed at all).
    deleted: product.status === 'trash',
    updatedAt: typeof product.date_modified_gmt === 'string' ? `${product.date_modified_gmt.replace(/Z$/, '')}Z` : null,
  };
}
