// What applying feed items reports (the schemas of a feed's result items, their types derived
// from them), and how validated items become stored rows.
import { Type, type Static } from 'typebox';
import type { ImageInput } from '../catalog.schemas.ts';
import { FIELD_CATALOG, fieldByName, READ_ONLY_FIELDS } from '../field-catalog.ts';

/** An image as an item's report shows it. */
export const ImageOut = Type.Object({
  image_pk: Type.Integer(),
  url: Type.String(),
  url_source: Type.String({ description: 'exactly the address the client sent' }),
  position: Type.Integer({ description: '0-based' }),
});
export type ImageOut = Static<typeof ImageOut>;

export const ReportWarning = Type.Object({ pointer: Type.String(), code: Type.String(), message: Type.String() });
export type ReportWarning = Static<typeof ReportWarning>;

/**
 * One applied item of a feed's `result.success`. Every item has `sku` and `product_pk`; in a
 * variation feed `product_pk` is the variation's pk and `parent_pk` its product's. An image
 * feed has one item per image. `warning`/`warnings` are filled by the feed service.
 */
export const ItemSuccess = Type.Object({
  index: Type.Integer({ description: "the item's index in the request" }),
  sku: Type.Optional(Type.String()),
  product_pk: Type.Optional(Type.Integer({ description: 'the product; in a variation feed the variation (its parent is parent_pk)' })),
  parent_pk: Type.Optional(Type.Integer({ description: "variation feeds: the variation's product" })),
  variation_pk: Type.Optional(Type.Integer()),
  variation_pks: Type.Optional(Type.Array(Type.Integer())),
  image_pk: Type.Optional(Type.Integer({ description: 'image feeds: one item per image' })),
  url_source: Type.Optional(Type.String()),
  position: Type.Optional(Type.Integer()),
  images: Type.Optional(Type.Array(ImageOut)),
  warning: Type.Array(Type.String(), { description: '"<pointer>: <message>" of each warning; empty when there is none' }),
  warnings: Type.Array(ReportWarning),
});
export type ItemSuccess = Static<typeof ItemSuccess>;

/** One refused item of a feed's `result.errors`: `sku`, `product_pk` where known, `image_pk` for an image. */
export const ItemError = Type.Object({
  index: Type.Integer(),
  sku: Type.Optional(Type.String()),
  product_pk: Type.Optional(Type.Integer()),
  parent_pk: Type.Optional(Type.Integer()),
  image_pk: Type.Optional(Type.Integer({ description: 'an image that was not found' })),
  pointer: Type.String(),
  code: Type.String(),
  message: Type.String(),
});
export type ItemError = Static<typeof ItemError>;

export interface ChunkOutcome {
  success: ItemSuccess[];
  errors: ItemError[];
}

export interface Indexed<T> {
  index: number;
  item: T;
}

/** What a feed's items apply to: its shop, and the product (and variation) of a sub-resource feed. */
export interface ApplyTarget {
  shopPk: number;
  productPk: number | null;
  variationPk: number | null;
}

export const ok = (index: number, fields: Omit<ItemSuccess, 'index' | 'warning' | 'warnings'>): ItemSuccess => ({
  index,
  ...fields,
  warning: [],
  warnings: [],
});

/** Kept in their own columns or not stored: never in the attributes document. */
const PRODUCT_COLUMNS = new Set(['sku', 'name', 'price', 'stock', 'images', 'variations']);
const VARIATION_COLUMNS = new Set(['sku', 'price', 'stock', 'images']);
const NOT_STORED = new Set([...READ_ONLY_FIELDS, ...FIELD_CATALOG.filter((f) => f.ignored === true).map((f) => f.name)]);

export interface Attrs {
  /** The attributes document to store (or to merge over the stored one). */
  set: Record<string, unknown>;
  /** Category attributes sent as null: removed. */
  remove: string[];
}

/**
 * The attributes document of an item: every field but those kept in columns and the read-only
 * ones. Documented fields are kept as sent (a nullable one may be null); a category attribute
 * sent as null is removed instead.
 */
function attrsOf(item: Record<string, unknown>, columns: Set<string>): Attrs {
  const out: Attrs = { set: {}, remove: [] };
  for (const k of Object.keys(item)) {
    const v = item[k];
    if (v === undefined || columns.has(k) || NOT_STORED.has(k)) continue;
    if (v === null && !fieldByName.has(k)) out.remove.push(k);
    else out.set[k] = v;
  }
  return out;
}

/**
 * Folds a later update's attributes into a patch of earlier ones (several updates of one row in
 * a chunk become one): a later value wins, a later removal undoes an earlier value.
 */
export function foldAttrs(patch: { set: Record<string, unknown>; drop: Set<string> }, attrs: Attrs): void {
  for (const k of Object.keys(attrs.set)) patch.drop.delete(k);
  for (const k of attrs.remove) delete patch.set[k];
  Object.assign(patch.set, attrs.set);
  for (const k of attrs.remove) patch.drop.add(k);
}

export const productAttrs = (item: object): Attrs => attrsOf(item as Record<string, unknown>, PRODUCT_COLUMNS);
export const variationAttrs = (item: object): Attrs => attrsOf(item as Record<string, unknown>, VARIATION_COLUMNS);

export const imageUrl = (image: ImageInput): string => (typeof image === 'string' ? image : image.url);

/** Image addresses in order, each once. */
export const imageUrls = (images: ImageInput[]): string[] => [...new Set(images.map(imageUrl))];

export const notFoundError = (
  index: number,
  pointer: string,
  message: string,
  extra: Omit<ItemError, 'index' | 'pointer' | 'code' | 'message'> = {},
): ItemError => ({
  index,
  ...extra,
  pointer,
  code: 'not_found',
  message,
});

/** The product was deleted after the feed was accepted: every item fails. */
export const productGone = (items: Indexed<unknown>[], productPk: number, variations = false): ChunkOutcome => ({
  success: [],
  errors: items.map(({ index }) =>
    notFoundError(
      index,
      `/${index}`,
      `Product ${productPk} was not found in this shop.`,
      variations ? { parent_pk: productPk } : { product_pk: productPk },
    ),
  ),
});
