// The API's validation rules for catalog items, usable without HTTP (the connectors validate
// ERP files with it). Every invalid field of every item is reported by JSON pointer. A field
// outside the field catalog at a product's or variation's top level is a category attribute:
// kept as sent, never a warning. Read-only fields a GET returns are accepted and ignored.
// Unknown fields elsewhere (inside an image object) are stripped and reported as warnings.
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { TSchema } from 'typebox';
import type { FieldError } from '../errors.ts';
import { compileRequestSchema } from '../validation/ajv.ts';
import { oversizeArray, oversizeMessage } from '../validation/array-caps.ts';
import { nulErrors } from '../validation/storable-text.ts';
import { formatTimestamp, parseTimestamp, TIMESTAMP_MESSAGE, ZONED_TIMESTAMP_MESSAGE } from '../validation/timestamp.ts';
import {
  NOT_BLANK,
  ImageInput,
  ImagePosition,
  ImageRef,
  Product,
  ProductRef,
  ProductUpdate,
  VariationCreate,
  VariationUpdate,
  type ProductInput,
} from './catalog.schemas.ts';
import { editDistance } from '../validation/near-miss.ts';
import { InexactNumber, INEXACT_NUMBER_CODE, inexactMessage, inexactNumbers } from '../validation/exact-numbers.ts';
import { MAX_ATTRIBUTE_BYTES, MAX_ATTRIBUTE_NAME, MAX_ATTRIBUTES, MAX_ATTRIBUTES_BYTES } from './field-catalog.ts';

export interface ItemWarning {
  index: number;
  pointer: string;
  code: string;
  message: string;
}

/** Item kinds, one per feed item shape. */
export type ItemKind =
  'product' | 'product_update' | 'product_ref' | 'variation_create' | 'variation_update' | 'pk_ref' | 'image_input' | 'image_position';

/** Kinds whose items carry category attributes at their top level (and, for products, in their variations). */
const attributeSchemas = new Set<TSchema>([Product, ProductUpdate, VariationCreate, VariationUpdate]);
/** Kinds that name things (delete, reorder): other top-level fields are ignored without a word. */
const REFERENCES = new Set<ItemKind>(['product_ref', 'pk_ref', 'image_position']);

const schemas: Record<ItemKind, TSchema> = {
  product: Product,
  product_update: ProductUpdate,
  product_ref: ProductRef,
  variation_create: VariationCreate,
  variation_update: VariationUpdate,
  // {pk} of a variation (delete) or of a product image (replace, delete).
  pk_ref: ImageRef,
  image_input: ImageInput,
  image_position: ImagePosition,
};
const compiled = new Map<ItemKind, ValidateFunction>();
const validatorOf = (kind: ItemKind): ValidateFunction => {
  let v = compiled.get(kind);
  if (v === undefined) {
    v = compileRequestSchema(schemas[kind] as object);
    compiled.set(kind, v);
  }
  return v;
};

const codeOfKeyword: Record<string, string> = {
  type: 'invalid_type',
  required: 'required',
  enum: 'invalid_value',
  const: 'invalid_value',
  anyOf: 'invalid_value',
  minLength: 'too_short',
  maxLength: 'too_long',
  minimum: 'too_small',
  maximum: 'too_large',
  minItems: 'too_few',
  maxItems: 'too_many',
  pattern: 'invalid_format',
  format: 'invalid_format',
};

/** Ajv errors of one item as field errors under `prefix` (`/3`), one per field. */
function toFieldErrors(errors: ErrorObject[], prefix: string): FieldError[] {
  // A failed anyOf (image forms, enums) reports each branch too: keep one error for it.
  const unions = errors.filter((e) => e.keyword === 'anyOf').map((e) => `${e.schemaPath}/`);
  const out = new Map<string, FieldError>();
  for (const e of errors) {
    if (unions.some((u) => e.schemaPath.startsWith(u))) continue;
    let pointer = prefix + e.instancePath;
    if (e.keyword === 'required') pointer += `/${String(e.params.missingProperty)}`;
    if (out.has(pointer)) continue;
    const schema = e.parentSchema as { format?: string; description?: string; anyOf?: { const?: unknown }[] } | undefined;
    let code = codeOfKeyword[e.keyword] ?? 'invalid';
    let message = e.keyword === 'required' ? 'is required' : (e.message ?? 'is invalid');
    if ((schema?.format === 'timestamp' || schema?.format === 'timestamp-zone') && (e.keyword === 'pattern' || e.keyword === 'format')) {
      code = 'invalid_timestamp';
      message = schema.format === 'timestamp' ? TIMESTAMP_MESSAGE : ZONED_TIMESTAMP_MESSAGE;
    } else if (e.keyword === 'anyOf' && schema?.anyOf?.every((b) => b.const !== undefined)) {
      message = `must be one of ${schema.anyOf.map((b) => String(b.const)).join(', ')}`;
    } else if (e.keyword === 'anyOf' && schema?.description !== undefined) {
      code = 'invalid_image';
      message = `must be ${schema.description}`;
    } else if (e.keyword === 'pattern' && e.params.pattern === NOT_BLANK) {
      code = 'required';
      message = 'is required (only white space was sent)';
    } else if (e.keyword === 'pattern' && /https/.test(String(e.params.pattern))) {
      code = 'invalid_url';
      message = 'must be an http(s) address';
    }
    out.set(pointer, { pointer, code, message });
  }
  return [...out.values()];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A deep copy of parsed JSON data (objects, arrays, primitives): it knows the data is plain
 * JSON, so it does far less than structuredClone, which runs once per product. A key named `__proto__` (JSON.parse makes it an own property)
 * stays a plain property instead of setting the copy's prototype.
 */
function copyJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copyJson);
  if (value instanceof InexactNumber) return value;
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    if (key === '__proto__')
      Object.defineProperty(out, key, { value: copyJson(value[key]), enumerable: true, writable: true, configurable: true });
    else out[key] = copyJson(value[key]);
  }
  return out;
}

/** Unknown fields listed as warnings per item; more are counted in one last warning. */
export const MAX_ITEM_WARNINGS = 100;

interface Unknown {
  pointers: string[];
  count: number;
  /** Category attributes refused (too many, a bad name, too large). */
  errors: FieldError[];
  /** Bytes of the JSON text of the item's category attributes, its variations' included. */
  attributeBytes: number;
  /** Attributes one edit away from a documented field (`colour`, `stok`): pointer and the field. */
  nearMisses: { pointer: string; name: string; field: string }[];
}

const bytes = (n: number): string => n.toLocaleString('en-US');

/**
 * The documented field `name` was probably meant to be: one edit away (or another case), for
 * names of 4 characters or more; none when two fields are as near.
 */
function probableField(name: string, fields: string[]): string | undefined {
  if (name.length < 4) return undefined;
  const given = name.toLowerCase();
  const near = fields.filter((f) => editDistance(given, f.toLowerCase(), 1) <= 1);
  return near.length === 1 ? near[0] : undefined;
}

const escape = (key: string): string => key.replaceAll('~', '~0').replaceAll('/', '~1');

/**
 * Removes fields the schema does not know (in place), reporting each by pointer (the first
 * MAX_ITEM_WARNINGS), except category attributes: unknown top-level fields of a product or
 * variation stay (a `__proto__` never does). `silent`: unknown fields of this object go
 * without a warning (references: only their pk counts).
 */
function strip(schema: TSchema, value: unknown, pointer: string, found: Unknown, silent = false): void {
  const s = schema as { properties?: Record<string, TSchema>; items?: TSchema; anyOf?: TSchema[]; type?: unknown };
  if (s.anyOf !== undefined) {
    const branch = s.anyOf.find(
      (b) => ((b as { type?: unknown }).type === 'object') === isObject(value) && (b as { type?: unknown }).type !== undefined,
    );
    if (branch !== undefined) strip(branch, value, pointer, found);
    return;
  }
  if (s.properties !== undefined && isObject(value)) {
    const keepsAttributes = attributeSchemas.has(schema);
    let attributes = 0;
    let badNames: FieldError[] | undefined;
    for (const key of Object.keys(value)) {
      // Own properties only: `__proto__` or `constructor` must not find Object.prototype's.
      const child = Object.hasOwn(s.properties, key) ? s.properties[key] : undefined;
      if (child === undefined) {
        if (keepsAttributes && key !== '__proto__') {
          attributes++;
          const at = `${pointer}/${escape(key)}`;
          if (key.length === 0 || key.length > MAX_ATTRIBUTE_NAME) {
            (badNames ??= []).push({
              pointer: at,
              code: 'invalid_attribute',
              message: `an attribute name has 1-${MAX_ATTRIBUTE_NAME} characters`,
            });
          }
          const size = Buffer.byteLength(JSON.stringify(value[key]) ?? '');
          found.attributeBytes += size;
          if (size > MAX_ATTRIBUTE_BYTES) {
            (badNames ??= []).push({
              pointer: at,
              code: 'too_large',
              message: `is ${bytes(size)} bytes as JSON; a category attribute's value takes at most ${bytes(MAX_ATTRIBUTE_BYTES)}`,
            });
          }
          const field = probableField(key, Object.keys(s.properties));
          if (field !== undefined && value[field] === undefined) found.nearMisses.push({ pointer: at, name: key, field });
          continue;
        }
        if (!silent && ++found.count <= MAX_ITEM_WARNINGS) found.pointers.push(`${pointer}/${escape(key)}`);
        delete value[key];
      } else if (typeof value[key] === 'object' && value[key] !== null) {
        // Objects and arrays only: a primitive has nothing to strip (no pointer built for it).
        strip(child, value[key], `${pointer}/${key}`, found);
      }
    }
    if (attributes > MAX_ATTRIBUTES) {
      found.errors.push({
        pointer,
        code: 'too_many_attributes',
        message: `has ${attributes} category attributes; at most ${MAX_ATTRIBUTES}`,
      });
    } else if (badNames !== undefined) {
      found.errors.push(...badNames);
    }
  } else if (s.items !== undefined && Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      if (typeof v === 'object' && v !== null) strip(s.items, v, `${pointer}/${i}`, found);
    }
  }
}

/** A missing field's error names an attribute sent beside it that was probably meant to be it. */
function withNearMiss(e: FieldError, nearMisses: Unknown['nearMisses']): FieldError {
  if (e.code !== 'required') return e;
  const parent = e.pointer.slice(0, e.pointer.lastIndexOf('/'));
  const miss = nearMisses.find(
    (m) => m.field === e.pointer.slice(parent.length + 1) && m.pointer.slice(0, m.pointer.lastIndexOf('/')) === parent,
  );
  return miss === undefined ? e : { ...e, message: `${e.message} (did you mean ${miss.field}? ${JSON.stringify(miss.name)} was sent)` };
}

const TS = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})$/;
const TIMESTAMP_FIELDS = ['discount_from', 'discount_to', 'created_at', 'updated_at', 'deleted_at'];

/**
 * Valid timestamps sent with a zone become the one stored form, YYYY-MM-DDThh:mm:ss in UTC; one
 * whose UTC instant leaves years 0001-9999 (0001-01-01T00:00:00+01:00) is an error.
 */
function inUtc(item: Record<string, unknown>, prefix: string): FieldError[] {
  const errors: FieldError[] = [];
  const fix = (obj: Record<string, unknown>, at: string): void => {
    for (const f of TIMESTAMP_FIELDS) {
      const v = obj[f];
      if (typeof v !== 'string' || TS.test(v)) continue;
      const utc = formatTimestamp(parseTimestamp(v, true)!);
      if (TS.test(utc) && parseTimestamp(utc) !== undefined) obj[f] = utc;
      else errors.push({ pointer: `${at}/${f}`, code: 'invalid_timestamp', message: ZONED_TIMESTAMP_MESSAGE });
    }
  };
  fix(item, prefix);
  if (Array.isArray(item.variations)) item.variations.forEach((v, i) => isObject(v) && fix(v, `${prefix}/variations/${i}`));
  return errors;
}

/** Rules a JSON schema cannot say. */
function crossFieldErrors(kind: ItemKind, item: Record<string, unknown>, prefix: string): FieldError[] {
  const errors: FieldError[] = [];
  const range = (obj: Record<string, unknown>, at: string): void => {
    const from = obj.discount_from;
    const to = obj.discount_to;
    if (typeof from === 'string' && typeof to === 'string' && TS.test(from) && TS.test(to) && from > to) {
      errors.push({ pointer: `${at}/discount_to`, code: 'invalid_range', message: 'must not be before discount_from' });
    }
  };
  range(item, prefix);
  if (Array.isArray(item.variations)) item.variations.forEach((v, i) => isObject(v) && range(v, `${prefix}/variations/${i}`));
  if ((kind === 'product_update' || kind === 'product_ref') && item.pk === undefined && item.sku === undefined) {
    errors.push({ pointer: `${prefix}/pk`, code: 'required', message: 'pk or sku is required' });
  }
  return errors;
}

export interface ItemsValidation<T = Record<string, unknown>> {
  /** Valid items, unknown fields removed, with their index in the request. */
  valid: { index: number; item: T }[];
  /** The field errors, the first `maxErrors` of them. */
  errors: FieldError[];
  /** How many field errors there are in all. */
  errorsTotal: number;
  warnings: ItemWarning[];
}

export interface ValidateOptions {
  /**
   * The items are the caller's own, built for this call (a catalog file's products): unknown
   * fields are removed from them in place instead of from a copy. Same rules, same result.
   */
  inPlace?: boolean;
  /** Field errors kept (the first ones; errorsTotal counts them all). Default: every one. */
  maxErrors?: number;
  /** validateProducts: partial products by sku (the PUT's rules: nothing but sku required). */
  partial?: boolean;
}

/**
 * Validates a list of items of one kind. `single`: the body was one object, so pointers do not
 * start with an index (`/price`, not `/0/price`). Items are copied and the input is left as it
 * was, unless `inPlace`: then unknown fields are removed from the input's own objects.
 */
export function validateItems<T = Record<string, unknown>>(
  kind: ItemKind,
  items: unknown[],
  single = false,
  options: ValidateOptions = {},
): ItemsValidation<T> {
  const validate = validatorOf(kind);
  const out: ItemsValidation<T> = { valid: [], errors: [], errorsTotal: 0, warnings: [] };
  const inPlace = options.inPlace === true;
  const maxErrors = options.maxErrors ?? Infinity;
  const fail = (errors: FieldError[]): void => {
    out.errorsTotal += errors.length;
    for (const e of errors) if (out.errors.length < maxErrors) out.errors.push(e);
  };
  items.forEach((raw, index) => {
    const prefix = single ? '' : `/${index}`;
    // An image to add may be its address alone.
    if (!isObject(raw) && !(kind === 'image_input' && typeof raw === 'string'))
      return fail([{ pointer: prefix, code: 'invalid_type', message: 'must be object' }]);
    // An array over its bound (images, variations) is the item's one error, found before its
    // elements are copied or checked.
    const over = oversizeArray(schemas[kind], raw);
    if (over !== undefined) return fail([{ pointer: prefix + over.pointer, code: 'too_many', message: oversizeMessage(over) }]);
    // Numbers parsing would have changed (1e400, 9007199254740993): each its field's one error.
    const inexact = inexactNumbers(raw, prefix);
    const item = (inPlace ? raw : copyJson(raw)) as Record<string, unknown>;
    const unknown: Unknown = { pointers: [], count: 0, errors: [], attributeBytes: 0, nearMisses: [] };
    strip(schemas[kind], item, prefix, unknown, REFERENCES.has(kind));
    const valid = validate(item);
    const errors: FieldError[] = inexact.map(({ pointer, number }) => ({
      pointer,
      code: INEXACT_NUMBER_CODE,
      message: inexactMessage(number),
    }));
    const inexactAt = new Set(errors.map((e) => e.pointer));
    const checked = !valid ? toFieldErrors(validate.errors ?? [], prefix) : isObject(item) ? inUtc(item, prefix) : [];
    errors.push(...checked.filter((e) => !inexactAt.has(e.pointer)).map((e) => withNearMiss(e, unknown.nearMisses)));
    if (isObject(item)) errors.push(...crossFieldErrors(kind, item, prefix));
    errors.push(...unknown.errors);
    nulErrors(item, prefix, errors);
    if (unknown.attributeBytes > MAX_ATTRIBUTES_BYTES) {
      errors.push({
        pointer: prefix,
        code: 'attributes_too_large',
        message: `its category attributes take ${bytes(unknown.attributeBytes)} bytes as JSON (its variations' included); an item's take at most ${bytes(MAX_ATTRIBUTES_BYTES)}`,
      });
    }
    if (errors.length > 0) return fail(errors);
    for (const m of unknown.nearMisses) {
      out.warnings.push({
        index,
        pointer: m.pointer,
        code: 'probable_typo',
        message: `stored as the category attribute ${JSON.stringify(m.name)}; did you mean ${m.field}?`,
      });
    }
    for (const pointer of unknown.pointers) out.warnings.push({ index, pointer, code: 'unknown_field', message: 'unknown field, ignored' });
    const more = unknown.count - unknown.pointers.length;
    if (more > 0)
      out.warnings.push({
        index,
        pointer: prefix,
        code: 'unknown_field',
        message: `${more} more unknown field${more === 1 ? '' : 's'}, ignored`,
      });
    out.valid.push({ index, item: item as T });
  });
  return out;
}

/** A request body as a list: one object or a non-empty array (an empty one is an error). */
export function bodyItems(body: unknown): { items: unknown[]; single: boolean; errors: FieldError[] } {
  if (Array.isArray(body)) {
    return body.length === 0
      ? { items: [], single: false, errors: [{ pointer: '', code: 'too_few', message: 'must contain at least one item' }] }
      : { items: body, single: false, errors: [] };
  }
  if (isObject(body)) return { items: [body], single: true, errors: [] };
  return {
    items: [],
    single: false,
    errors: [{ pointer: '', code: 'invalid_type', message: 'must be an object or a non-empty array of objects' }],
  };
}

/**
 * The products POST's rules: `body` is one Product or an array of them. Errors point into
 * the body (`/3/variations/0/price`); unknown fields become warnings.
 */
export function validateProducts(
  body: unknown,
  options: ValidateOptions = {},
): {
  valid: { index: number; product: ProductInput }[];
  errors: FieldError[];
  errorsTotal: number;
  warnings: ItemWarning[];
} {
  const { items, single, errors } = bodyItems(body);
  if (errors.length > 0) return { valid: [], errors, errorsTotal: errors.length, warnings: [] };
  const r = validateItems<ProductInput>(options.partial === true ? 'product_update' : 'product', items, single, options);
  return {
    valid: r.valid.map(({ index, item }) => ({ index, product: item })),
    errors: r.errors,
    errorsTotal: r.errorsTotal,
    warnings: r.warnings,
  };
}
