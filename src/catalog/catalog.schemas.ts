// The catalog's shapes: request items (Product, Variation create/update, Image, Image
// reference) built from the field catalog (field-catalog.ts: bounds, enums, requirements), and
// the stored records the API returns. Fields outside the catalog are category attributes: not
// in these schemas, kept by validation (product-validation.ts), returned beside the others.
import { Type, type Static, type TSchema } from 'typebox';
import { ReplyTimestamp, replyTimestamp } from '../validation/timestamp.ts';
import { FIELD_CATALOG, READ_ONLY_FIELDS, type FieldSpec } from './field-catalog.ts';

/** A required text's pattern: at least one character that is not white space. */
export const NOT_BLANK = '\\S';

/**
 * A timestamp a client sends: the seed's YYYY-MM-DDThh:mm:ss (UTC), or ISO 8601 with a zone,
 * a real date (src/validation/timestamp.ts). Stored, and answered, as the seed's form in UTC.
 */
export const Timestamp = Type.String({
  pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?([Zz]|[+-]\\d{2}:?\\d{2})?$',
  format: 'timestamp-zone',
  description: 'YYYY-MM-DDThh:mm:ss (UTC), or ISO 8601 with a zone (Z, +01:00); answered as YYYY-MM-DDThh:mm:ss, UTC',
  examples: ['2026-11-21T12:00:00', '2026-11-21T13:00:00+01:00'],
});

/** `type` arrays keep Ajv's message short ("must be number,null") where a Union would nest. */
const nullable = <T extends TSchema>(schema: T) =>
  Type.Unsafe<Static<T> | null>({ ...schema, type: [(schema as { type?: string }).type ?? 'string', 'null'] });

/** Images of one product or variation, and variations of one product, per request. */
export const MAX_IMAGES = 100;
export const MAX_VARIATIONS = 1_000;
const HttpUrl = Type.String({ pattern: '^https?://\\S+$', maxLength: 2000 });
/** Read-only fields a GET returns: accepted with any value, ignored. */
const ReadOnly = Type.Optional(Type.Unknown({ description: 'read-only: accepted and ignored' }));
const readOnly = (names: string[]) => Object.fromEntries(names.map((n) => [n, ReadOnly]));

/** An image in a product or variation: `{"url": ...}` (a GET's image, with pk and position, too) or the address alone. */
export const ImageInput = Type.Union([Type.Object({ url: HttpUrl, ...readOnly(['pk', 'position', 'url_source']) }), HttpUrl], {
  description: '{"url": "https://..."} or a plain http(s) address string',
});
export type ImageInput = string | { url: string };

/** A product image by its pk (variation update, image replace, image delete); a GET's image may be sent as it is. */
export const ImageRef = Type.Object({ pk: Type.Integer({ minimum: 1 }), ...readOnly(['url', 'position', 'url_source']) });
export type ImageRef = { pk: number };

/** A product image moved to a 0-based position (PUT .../images/). */
export const ImagePosition = Type.Object({
  pk: Type.Integer({ minimum: 1 }),
  position: Type.Integer({ minimum: 0, maximum: 1_000_000 }),
  ...readOnly(['url', 'url_source']),
});
export type ImagePosition = { pk: number; position: number };

const choice = (spec: FieldSpec) => Type.Union(spec.options!.map((o) => Type.Literal(o.value)));

/** The schema of one catalog field. `required`: a required text may not be empty. */
function fieldSchema(spec: FieldSpec, images: TSchema, variations: TSchema | undefined): TSchema {
  const bounds = (min: string, max: string) => ({
    ...(spec.min_num === null ? {} : { [min]: spec.min_num }),
    ...(spec.max_num === null ? {} : { [max]: spec.max_num }),
  });
  let s: TSchema;
  switch (spec.format) {
    // A required text is required trimmed: a sku of only spaces is no sku (NOT_BLANK).
    case 'text':
      s = Type.String({
        ...(spec.requirement === 'Required' ? { minLength: 1, pattern: NOT_BLANK } : {}),
        ...(spec.max_length === null ? {} : { maxLength: spec.max_length }),
      });
      break;
    case 'numeric_text':
      s = Type.String({ pattern: '^\\d{1,10}(\\.\\d{1,6})?$', description: 'numeric text, e.g. "21" or "21.00"' });
      break;
    case 'integer':
      s = Type.Integer(bounds('minimum', 'maximum'));
      break;
    case 'decimal':
      s = Type.Number(bounds('minimum', 'maximum'));
      break;
    case 'boolean':
      s = Type.Boolean();
      break;
    case 'timestamp':
      s = Timestamp;
      break;
    case 'datetime':
      s = Type.String({ format: 'timestamp-zone', description: 'YYYY-MM-DDThh:mm:ss, or ISO 8601 with a zone' });
      break;
    case 'choice':
      s = choice(spec);
      break;
    case 'images':
      s = Type.Array(images, { maxItems: MAX_IMAGES });
      break;
    case 'variations':
      s = variations === undefined ? Type.Never() : Type.Array(variations, { maxItems: MAX_VARIATIONS });
      break;
  }
  return spec.nullable === true ? nullable(s) : s;
}

const WITH_ATTRIBUTES = {
  description: 'Fields outside the field catalog (GET /fields/) are category attributes: stored and returned as sent.',
};

type Where = 'product' | 'product_update' | 'variation' | 'variation_update';

/** The properties of an item kind, from the catalog, in its order. */
function properties(where: Where, variations?: TSchema): Record<string, TSchema> {
  const inVariation = where === 'variation' || where === 'variation_update';
  const images = where === 'variation_update' ? ImageRef : ImageInput;
  const out: Record<string, TSchema> = {};
  // A product update names its product by pk or sku (checked in code); a variation update by pk.
  if (where === 'product_update') out.pk = Type.Optional(Type.Integer({ minimum: 1 }));
  if (where === 'variation_update') out.pk = Type.Integer({ minimum: 1 });
  for (const spec of FIELD_CATALOG) {
    if (inVariation && !spec.in_variation) continue;
    if (spec.format === 'variations' && variations === undefined) continue;
    const schema = fieldSchema(spec, images, variations);
    const required = (where === 'product' && spec.requirement === 'Required') || (where === 'variation' && spec.name === 'sku');
    out[spec.name] = required ? schema : Type.Optional(schema);
  }
  return { ...readOnly(READ_ONLY_FIELDS.filter((n) => out[n] === undefined)), ...out };
}

export const VariationCreate = Type.Object(properties('variation'), WITH_ATTRIBUTES);
interface VariationFields {
  price?: number;
  stock?: number;
  discount?: number | null;
  discount_from?: string | null;
  discount_to?: string | null;
  /** Other documented fields and category attributes. */
  [field: string]: unknown;
}
export type VariationCreate = VariationFields & { sku: string; images?: ImageInput[] };

export const VariationUpdate = Type.Object(properties('variation_update'), WITH_ATTRIBUTES);
export type VariationUpdate = VariationFields & { pk: number; sku?: string; images?: ImageRef[] };

export const Product = Type.Object(properties('product', VariationCreate), WITH_ATTRIBUTES);
export type ProductInput = {
  sku: string;
  name: string;
  price: number;
  stock: number;
  images?: ImageInput[];
  variations?: VariationCreate[];
  [attribute: string]: unknown;
};

/** PUT /products/: a partial product identified by `pk` or `sku` (checked in code). */
export const ProductUpdate = Type.Object(properties('product_update', VariationCreate), WITH_ATTRIBUTES);
export type ProductUpdate = Partial<ProductInput> & { pk?: number };

/** DELETE /products/: `{"pk"}` or `{"sku"}` (checked in code); a GET's product may be sent as it is. */
export const ProductRef = Type.Object(
  {
    pk: Type.Optional(Type.Integer({ minimum: 1 })),
    sku: Type.Optional(Type.String({ minLength: 1, maxLength: 100, pattern: NOT_BLANK })),
  },
  { additionalProperties: true },
);
export type ProductRef = { pk?: number; sku?: string };

/** Request bodies: one item or a non-empty array of them. */
export const oneOrMany = <T extends TSchema>(item: T, description: string) =>
  Type.Union([item, Type.Array(item, { minItems: 1 })], { description });

// ---- What the API returns ----

export const StoredImage = Type.Object({ pk: Type.Integer(), url: Type.String(), position: Type.Integer({ description: '0-based' }) });
export type StoredImage = Static<typeof StoredImage>;

/** Documented fields kept in the attributes document, as a GET returns them. */
const CORE = new Set(['sku', 'name', 'price', 'stock', 'images', 'variations']);
const storedFields = (inVariation: boolean): Record<string, TSchema> =>
  Object.fromEntries(
    FIELD_CATALOG.filter((s) => !CORE.has(s.name) && s.ignored !== true && (!inVariation || s.in_variation)).map((s) => [
      s.name,
      Type.Optional(fieldSchema(s, ImageInput, undefined)),
    ]),
  );

const ATTRIBUTES = 'Category attributes (fields outside the field catalog) are returned at the top level beside these fields.';

export const StoredVariation = Type.Object(
  {
    pk: Type.Integer(),
    product_pk: Type.Integer(),
    sku: Type.String(),
    /** The variation's own price, else the product's. */
    price: Type.Number(),
    stock: Type.Integer(),
    ...storedFields(true),
    images: Type.Array(StoredImage),
    created_at: ReplyTimestamp,
    updated_at: ReplyTimestamp,
  },
  { additionalProperties: true, description: ATTRIBUTES },
);
export type StoredVariation = Static<typeof StoredVariation>;

export const StoredProduct = Type.Object(
  {
    pk: Type.Integer(),
    shop_pk: Type.Integer(),
    sku: Type.String(),
    name: Type.String(),
    price: Type.Number(),
    stock: Type.Integer(),
    ...storedFields(false),
    images: Type.Array(StoredImage),
    variations: Type.Array(StoredVariation),
    created_at: ReplyTimestamp,
    updated_at: replyTimestamp('any change of the product, its variations or images'),
  },
  { additionalProperties: true, description: ATTRIBUTES },
);
export type StoredProduct = Static<typeof StoredProduct>;
