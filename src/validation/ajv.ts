// The one Ajv every validator uses (route bodies, path and query strings, the admin API, catalog
// items sent to the API or read by connectors), so each applies the same rules: ajv-formats,
// the timestamp rule, finite numbers only (`1e309` parses to Infinity, which no column stores:
// strictNumbers), exact integers (safeIntegers below), every error reported, and no coercion: a
// body's "10" is not a number. Path and query strings, which are text, are converted first (src/http/validation.ts).
// `verbose` puts each error's schema on it, which item errors read (product-validation.ts).
// Code that checks a value outside a route (a connector's order, the configuration) calls
// `validate`; TypeBox builds the schemas and never checks a value itself.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { timestampFormats } from './timestamp.ts';
import { withInexactErrors } from './exact-numbers.ts';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (
  ajv: Ajv,
) => Ajv;

const ajv = addFormats(
  new Ajv({
    strict: false,
    allErrors: true,
    strictNumbers: true,
    coerceTypes: false,
    useDefaults: true,
    removeAdditional: false,
    verbose: true,
  }),
);
for (const [name, validate] of Object.entries(timestampFormats)) ajv.addFormat(name, validate);

/**
 * A copy of a JSON schema in which every integer without its own bounds gets the safe-integer
 * ones (+-(2^53 - 1)): an integer a request sends must be exact in JavaScript, and so fits the
 * bigint columns ids are kept in. Columns narrower than that (int4) say so in their schema.
 */
export function safeIntegers<T>(schema: T): T {
  if (Array.isArray(schema)) return schema.map(safeIntegers) as T;
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema))
    out[k] = k === 'const' || k === 'default' || k === 'examples' || k === 'enum' ? v : safeIntegers(v);
  const type = out.type;
  if (type === 'integer' || (Array.isArray(type) && type.includes('integer'))) {
    out.maximum ??= Number.MAX_SAFE_INTEGER;
    out.minimum ??= -Number.MAX_SAFE_INTEGER;
  }
  return out as T;
}

/** Compiles a request schema under the shared rules. */
export const compileRequestSchema = (schema: object): ValidateFunction => ajv.compile(safeIntegers(schema));

const validators = new WeakMap<object, ValidateFunction>();

/**
 * Ajv's errors of `value` under `schema` (none: valid), by the shared rules; each schema object
 * is compiled once. The schema's defaults are filled into `value` (useDefaults), so pass the
 * object you keep.
 */
export function validate(schema: object, value: unknown): ErrorObject[] {
  let check = validators.get(schema);
  if (check === undefined) {
    check = compileRequestSchema(schema);
    validators.set(schema, check);
  }
  // A number parsing would have changed (1e400) is its field's one error.
  return [...((withInexactErrors(value, check(value) ? [] : check.errors) ?? []) as ErrorObject[])];
}
