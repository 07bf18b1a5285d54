// The catalog's shapes, written once: request items (Product, Variation create/update, Image,
// Image reference) with INTERFACE.md's bounds and enums, and the stored records the API returns.
import { Type, type Static, type TSchema } from 'typebox';
import { Int4 } from '../platform/column-types.ts';

/** Wall-clock timestamp of the seed: exactly YYYY-MM-DDThh:mm:ss, no zone, a real date (src/platform/timestamp.ts). */
export const Timestamp = Type.String({
  pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}$',
  format: 'timestamp',
  description: 'YYYY-MM-DDThh:mm:ss (no zone)',
  examples: ['2026-11-21T12:00:00'],
});

/** `type` arrays keep Ajv's message short ("must be number,null") where a Union would nest. */
const nullable = <T extends TSchema>(schema: T) =>
  Type.Unsafe<Static<T> | null>({ ...schema, type: [(schema as { type?: string }).type ?? 'string', 'null'] });

const Money = Type.Number({ minimum: 0 });
const Count = Int4();
/** Images of one product or variation, and variations of one product, per request. */
export const MAX_IMAGES = 100;
export const MAX_VARIATIONS = 1_000;
const HttpUrl = Type.String({ pattern: '^https?://\\S+$', maxLength: 2000 });

export const Availability = Type.Union([Type.Literal('in_stock'), Type.Literal('preorder'), Type.Literal('out_of_stock')]);
export const Condition = Type.Union([Type.Literal('new'), Type.Literal('used'), Type.Literal('refurbished')]);
export const Gender = Type.Union([Type.Literal('unisex'), Type.Literal('male'), Type.Literal('female'), Type.Literal('boy'), Type.Literal('girl')]);
export const WeightUnit = Type.Union([Type.Literal('kg'), Type.Literal('g'), Type.Literal('lb'), Type.Literal('oz')]);
export const DimensionsUnit = Type.Union([Type.Literal('cm'), Type.Literal('mm'), Type.Literal('m'), Type.Literal('in')]);

/** An image in a product or variation of product creation: `{"url": ...}` or the address alone. */
export const ImageInput = Type.Union([Type.Object({ url: HttpUrl }), HttpUrl], {
  description: '{"url": "https://..."} or a plain http(s) address string',
});
export type ImageInput = Static<typeof ImageInput>;

/** A product image by its pk (variation update, image replace, image delete). */
export const ImageRef = Type.Object({ pk: Type.Integer({ minimum: 1 }) });
export type ImageRef = Static<typeof ImageRef>;

/** Fields a variation shares with its product (optional everywhere). */
const variationFields = {
  price: Type.Optional(Money),
  stock: Type.Optional(Count),
  availability: Type.Optional(Availability),
  condition: Type.Optional(Condition),
  color: Type.Optional(Type.String({ maxLength: 100 })),
  secondary_color: Type.Optional(Type.String({ maxLength: 100 })),
  size: Type.Optional(Type.String({ maxLength: 100 })),
  discount: Type.Optional(nullable(Money)),
  discount_from: Type.Optional(nullable(Timestamp)),
  discount_to: Type.Optional(nullable(Timestamp)),
};

export const VariationCreate = Type.Object({
  sku: Type.String({ minLength: 1, maxLength: 100 }),
  ...variationFields,
  images: Type.Optional(Type.Array(ImageInput, { maxItems: MAX_IMAGES })),
});
export type VariationCreate = Static<typeof VariationCreate>;

export const VariationUpdate = Type.Object({
  pk: Type.Integer({ minimum: 1 }),
  sku: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  ...variationFields,
  images: Type.Optional(Type.Array(ImageRef, { maxItems: MAX_IMAGES })),
});
export type VariationUpdate = Static<typeof VariationUpdate>;

/** Product attributes besides sku/name/price/stock/images/variations (stored as one document). */
export const productAttributeFields = {
  sku_simple: Type.Optional(Type.String({ maxLength: 100 })),
  brand: Type.Optional(Type.String({ maxLength: 255 })),
  category_pk: Type.Optional(Type.Integer({ minimum: 1 })),
  description: Type.Optional(Type.String({ maxLength: 65_535 })),
  short_description: Type.Optional(Type.String({ maxLength: 65_535 })),
  availability: Type.Optional(Availability),
  condition: Type.Optional(Condition),
  color: Type.Optional(Type.String({ maxLength: 100 })),
  secondary_color: Type.Optional(Type.String({ maxLength: 100 })),
  size: Type.Optional(Type.String({ maxLength: 100 })),
  gender: Type.Optional(Gender),
  tax: Type.Optional(Type.String({ pattern: '^\\d{1,10}(\\.\\d{1,6})?$', description: 'numeric text, e.g. "21" or "21.00"' })),
  delivery_time: Type.Optional(Count),
  discount: Type.Optional(nullable(Money)),
  discount_from: Type.Optional(nullable(Timestamp)),
  discount_to: Type.Optional(nullable(Timestamp)),
  weight: Type.Optional(Money),
  weight_unit: Type.Optional(WeightUnit),
  width: Type.Optional(Money),
  height: Type.Optional(Money),
  depth: Type.Optional(Money),
  dimensions_unit: Type.Optional(DimensionsUnit),
  shipping: Type.Optional(Money),
  shipping_width: Type.Optional(Money),
  shipping_height: Type.Optional(Money),
  shipping_depth: Type.Optional(Money),
  shipping_price_mia: Type.Optional(Money),
  is_default: Type.Optional(Type.Boolean()),
};

/** Accepted in the request (seed), validated, not stored: the server keeps its own clock. */
const clientTimestamps = {
  created_at: Type.Optional(Timestamp),
  updated_at: Type.Optional(Timestamp),
  deleted_at: Type.Optional(nullable(Timestamp)),
};

export const Product = Type.Object({
  sku: Type.String({ minLength: 1, maxLength: 100 }),
  name: Type.String({ minLength: 1, maxLength: 255 }),
  price: Money,
  stock: Count,
  ...productAttributeFields,
  ...clientTimestamps,
  images: Type.Optional(Type.Array(ImageInput, { maxItems: MAX_IMAGES })),
  variations: Type.Optional(Type.Array(VariationCreate, { maxItems: MAX_VARIATIONS })),
});
export type ProductInput = Static<typeof Product>;

/** PUT /products/: a partial product identified by `pk` or `sku` (checked in code). */
export const ProductUpdate = Type.Object({
  pk: Type.Optional(Type.Integer({ minimum: 1 })),
  sku: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  price: Type.Optional(Money),
  stock: Type.Optional(Count),
  ...productAttributeFields,
  ...clientTimestamps,
  images: Type.Optional(Type.Array(ImageInput, { maxItems: MAX_IMAGES })),
  variations: Type.Optional(Type.Array(VariationCreate, { maxItems: MAX_VARIATIONS })),
});
export type ProductUpdate = Static<typeof ProductUpdate>;

/** DELETE /products/: `{"pk"}` or `{"sku"}` (checked in code). */
export const ProductRef = Type.Object({
  pk: Type.Optional(Type.Integer({ minimum: 1 })),
  sku: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
});
export type ProductRef = Static<typeof ProductRef>;

/** Request bodies: one item or a non-empty array of them. */
export const oneOrMany = <T extends TSchema>(item: T, description: string) =>
  Type.Union([item, Type.Array(item, { minItems: 1 })], { description });

// ---- What the API returns ----

export const StoredImage = Type.Object({ pk: Type.Integer(), url: Type.String(), position: Type.Integer() });
export type StoredImage = Static<typeof StoredImage>;

export const StoredVariation = Type.Object({
  pk: Type.Integer(),
  product_pk: Type.Integer(),
  sku: Type.String(),
  /** The variation's own price, else the product's. */
  price: Type.Number(),
  stock: Type.Integer(),
  availability: Type.Optional(Availability),
  condition: Type.Optional(Condition),
  color: Type.Optional(Type.String()),
  secondary_color: Type.Optional(Type.String()),
  size: Type.Optional(Type.String()),
  discount: Type.Optional(nullable(Type.Number())),
  discount_from: Type.Optional(nullable(Type.String())),
  discount_to: Type.Optional(nullable(Type.String())),
  images: Type.Array(StoredImage),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});
export type StoredVariation = Static<typeof StoredVariation>;

export const StoredProduct = Type.Object({
  pk: Type.Integer(),
  shop_pk: Type.Integer(),
  sku: Type.String(),
  name: Type.String(),
  price: Type.Number(),
  stock: Type.Integer(),
  ...productAttributeFields,
  images: Type.Array(StoredImage),
  variations: Type.Array(StoredVariation),
  created_at: Type.String({ format: 'date-time', description: 'server time, UTC' }),
  updated_at: Type.String({ format: 'date-time', description: 'server time, UTC: any change of the product, its variations or images' }),
});
export type StoredProduct = Static<typeof StoredProduct>;

export const ProductPage = Type.Object({
  count: Type.Integer(),
  next: nullable(Type.String()),
  previous: nullable(Type.String()),
  results: Type.Array(StoredProduct),
});
export type ProductPage = Static<typeof ProductPage>;
