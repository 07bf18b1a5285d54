// A Shopify product (Admin GraphQL API: Product with its variants, images and options) as a
// waybill product. The field tables are data, the same a Shopify CSV export's preset maps
// (Handle, Title, Body (HTML), Vendor, Type, Variant SKU, Variant Price...).
import { mapFields, type FieldRule, type PulledProduct } from '../sdk/index.ts';

export const PRODUCT_FIELDS: readonly FieldRule[] = [
  { to: 'sku', from: 'handle', as: 'text' },
  { to: 'name', from: 'title', as: 'text' },
  { to: 'description', from: 'descriptionHtml', as: 'text' },
  { to: 'brand', from: 'vendor', as: 'text' },
  { to: 'category', from: 'productType', as: 'text' },
  { to: 'images', from: 'images.nodes', as: 'images' },
];

export const VARIANT_FIELDS: readonly FieldRule[] = [
  { to: 'sku', from: 'sku', as: 'text' },
  { to: 'price', from: 'price', as: 'number' },
  { to: 'stock', from: 'inventoryQuantity', as: 'count' },
  { to: 'images', from: 'image', as: 'images' },
];

/** Option names (lower case) that are waybill fields; others become attributes by name. */
export const OPTION_FIELDS: Record<string, string> = { color: 'color', colour: 'color', size: 'size' };

export interface ShopifyVariant {
  id: string;
  sku?: string | null;
  selectedOptions?: { name: string; value: string }[];
  [field: string]: unknown;
}
export interface ShopifyProduct {
  id: string;
  handle: string;
  status: 'ACTIVE' | 'ARCHIVED' | 'DRAFT' | string;
  updatedAt: string;
  variants?: { nodes: ShopifyVariant[] };
  [field: string]: unknown;
}

const optionKey = (name: string): string => OPTION_FIELDS[name.toLowerCase()] ?? name.toLowerCase().replace(/\s+/g, '_');
/** Shopify's one variant of a product without options. */
const isDefault = (v: ShopifyVariant): boolean => (v.selectedOptions ?? []).every((o) => o.name === 'Title' && o.value === 'Default Title');

function variant(v: ShopifyVariant): Record<string, unknown> {
  const m: Record<string, unknown> = { stock: 0, ...mapFields(v, VARIANT_FIELDS) };
  for (const o of v.selectedOptions ?? []) m[optionKey(o.name)] = o.value;
  // A variant without a SKU is known by its numeric id (gid://shopify/ProductVariant/123 -> shopify-123).
  m.sku ??= `shopify-${v.id.split('/').at(-1)}`;
  return m;
}

export function mapShopifyProduct(p: ShopifyProduct): PulledProduct {
  const product = mapFields(p, PRODUCT_FIELDS);
  const variants = p.variants?.nodes ?? [];
  if (variants.length === 1 && isDefault(variants[0]!)) {
    // A simple product: its one variant's SKU, price and stock.
    const { sku, ...rest } = mapFields(variants[0], VARIANT_FIELDS);
    Object.assign(product, { stock: 0 }, rest, sku === undefined ? {} : { sku });
  } else if (variants.length > 0) {
    const vs = variants.map(variant);
    Object.assign(product, {
      price: vs[0]!.price,
      stock: vs.reduce((n, v) => n + (typeof v.stock === 'number' ? v.stock : 0), 0),
      variations: vs,
    });
  }
  return { product, deleted: p.status === 'ARCHIVED', updatedAt: p.updatedAt };
}
