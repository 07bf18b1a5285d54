// The field catalog: every documented Product and Variation field with its type, requirement,
// bounds and allowed values, as data. Request validation (catalog.schemas.ts builds its TypeBox
// schemas from it), the OpenAPI document (built from those schemas) and `GET /fields/` all read
// this one list, so they cannot disagree. A field not listed here is a category attribute.
import { INT4_MAX } from '../validation/column-types.ts';

/**
 * `text` string; `numeric_text` a string holding a number ("21.00"); `integer`, `decimal`,
 * `boolean`; `timestamp` the document's YYYY-MM-DDThh:mm:ss; `datetime` the same or ISO 8601
 * with a zone (read-only stamps sent back from a GET); `choice` one of `options`; `images` a
 * list of {"url"} or address strings; `variations` a list of Variation.
 */
export type FieldFormat =
  'text' | 'numeric_text' | 'integer' | 'decimal' | 'boolean' | 'timestamp' | 'datetime' | 'choice' | 'images' | 'variations';
export type Requirement = 'Required' | 'Recommended' | 'Optional';

export interface FieldSpec {
  name: string;
  text: string;
  format: FieldFormat;
  requirement: Requirement;
  max_length: number | null;
  min_num: number | null;
  max_num: number | null;
  options: { value: string; text: string }[] | null;
  /** Also a field of a variation (optional there, except sku). */
  in_variation: boolean;
  /** null is accepted (not set). Not part of `GET /fields/`. */
  nullable?: true;
  /** Accepted and checked, never stored (the server keeps its own clock). Not part of `GET /fields/`. */
  ignored?: true;
}

const opts = (...pairs: [string, string][]) => pairs.map(([value, text]) => ({ value, text }));

const f = (name: string, text: string, format: FieldFormat, more: Partial<FieldSpec> = {}): FieldSpec => ({
  name,
  text,
  format,
  requirement: 'Optional',
  max_length: null,
  min_num: null,
  max_num: null,
  options: null,
  in_variation: false,
  ...more,
});

const SKU = 100;
const SHORT = 100;

export const FIELD_CATALOG: readonly FieldSpec[] = [
  f('sku', 'Product code, unique in the shop (in a product, unique among its variations)', 'text', {
    requirement: 'Required',
    max_length: SKU,
    in_variation: true,
  }),
  f('name', 'Product name', 'text', { requirement: 'Required', max_length: 255 }),
  f('sku_simple', 'Simple product code', 'text', { max_length: SKU }),
  f('brand', 'Brand', 'text', { requirement: 'Recommended', max_length: 255 }),
  f('category_pk', 'Id of the category', 'integer', { requirement: 'Recommended' }),
  f('description', 'Description', 'text', { requirement: 'Recommended', max_length: 65_535 }),
  f('short_description', 'Short description', 'text', { max_length: 65_535 }),
  f('price', "Price (a variation without one has its product's)", 'decimal', { requirement: 'Required', min_num: 0, in_variation: true }),
  f('stock', "Units in stock (a variation without one has its product's)", 'integer', {
    requirement: 'Required',
    min_num: 0,
    max_num: INT4_MAX,
    in_variation: true,
  }),
  f('availability', 'Availability', 'choice', {
    in_variation: true,
    options: opts(['in_stock', 'In stock'], ['preorder', 'Preorder'], ['out_of_stock', 'Out of stock']),
  }),
  f('condition', 'Condition', 'choice', {
    in_variation: true,
    options: opts(['new', 'New'], ['used', 'Used'], ['refurbished', 'Refurbished']),
  }),
  f('color', 'Color (free text)', 'text', { max_length: SHORT, in_variation: true }),
  f('secondary_color', 'Secondary color (free text)', 'text', { max_length: SHORT, in_variation: true }),
  f('size', 'Size (free text: numeric and alphanumeric sizes occur)', 'text', { max_length: SHORT, in_variation: true }),
  f('gender', 'Gender', 'choice', {
    options: opts(['unisex', 'Unisex'], ['male', 'Male'], ['female', 'Female'], ['boy', 'Boy'], ['girl', 'Girl']),
  }),
  f('tax', 'Tax rate, as numeric text ("21" or "21.00")', 'numeric_text', { max_length: 17 }),
  f('delivery_time', 'Delivery time in days', 'integer', { min_num: 0, max_num: INT4_MAX }),
  f('discount', 'Discount, a percentage', 'decimal', { min_num: 0, max_num: 99, in_variation: true, nullable: true }),
  f('discount_from', 'Discount start (YYYY-MM-DDThh:mm:ss)', 'timestamp', { in_variation: true, nullable: true }),
  f('discount_to', 'Discount end (YYYY-MM-DDThh:mm:ss, not before discount_from)', 'timestamp', { in_variation: true, nullable: true }),
  f('weight', 'Weight', 'decimal'),
  f('weight_unit', 'Unit of weight', 'choice', { options: opts(['kg', 'Kilogram'], ['g', 'Gram'], ['lb', 'Pound'], ['oz', 'Ounce']) }),
  f('width', 'Width', 'decimal'),
  f('height', 'Height', 'decimal'),
  f('depth', 'Depth', 'decimal'),
  f('dimensions_unit', 'Unit of width, height and depth', 'choice', {
    options: opts(['cm', 'Centimetre'], ['mm', 'Millimetre'], ['m', 'Metre'], ['in', 'Inch']),
  }),
  f('shipping', 'Shipping cost (-1: not set)', 'decimal'),
  f('shipping_width', 'Package width', 'decimal'),
  f('shipping_height', 'Package height', 'decimal'),
  f('shipping_depth', 'Package depth', 'decimal'),
  f('shipping_price_mia', 'Shipping price (MIA)', 'decimal'),
  f('is_default', 'Default product', 'boolean'),
  f('images', 'Images: {"url"} objects or address strings, http(s); a GET\'s images may be sent back', 'images', {
    requirement: 'Recommended',
    in_variation: true,
  }),
  f('variations', 'Variations of the product', 'variations'),
  f('created_at', 'Accepted, not stored (server time is kept)', 'datetime', { ignored: true, in_variation: true }),
  f('updated_at', 'Accepted, not stored (server time is kept)', 'datetime', { ignored: true, in_variation: true }),
  f('deleted_at', 'Accepted, not stored', 'datetime', { ignored: true, nullable: true }),
];

/**
 * Fields a GET returns that a client may send back unchanged: ignored silently, any value, never
 * an attribute (`pk` identifies the item where the request takes one).
 */
export const READ_ONLY_FIELDS: readonly string[] = ['pk', 'shop_pk', 'product_pk', 'marketplaces', 'url_source'];

/** At most this many category attributes per product or variation; a name has 1-255 characters. */
export const MAX_ATTRIBUTES = 500;
export const MAX_ATTRIBUTE_NAME = 255;
/**
 * Size bounds of category attributes, in bytes of their JSON text (UTF-8): one value (a long
 * `description_html` is some 20 KB), and all of one item's together (a product with its
 * variations' attributes, or a variation). Unbounded, 500 attributes of 100 KB made one product
 * 50 MB, and a list page of such products took the daemon out of memory.
 */
export const MAX_ATTRIBUTE_BYTES = 65_536;
export const MAX_ATTRIBUTES_BYTES = 262_144;

export const fieldByName = new Map(FIELD_CATALOG.map((x) => [x.name, x]));

/** Documented or read-only: such a name is never a category attribute. */
export const isDocumented = (name: string): boolean => fieldByName.has(name) || READ_ONLY_FIELDS.includes(name);

/** The catalog as `GET /fields/` shows it. */
export const publicCatalog = () => FIELD_CATALOG.map(({ nullable: _n, ignored: _i, ...spec }) => spec);
