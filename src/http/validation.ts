// Route validation with the one Ajv (src/validation/ajv.ts). Bodies are checked as sent (a price
// sent as "10" is a wrong type, 400). Path and query strings are text: each value is first
// converted to the type its schema names ("?page=2" is the integer 2), by the rules of Ajv's
// coerceTypes 'array', then checked the same way. A body's arrays are measured against their
// maxItems first: one over it is the only error reported, at once.
import type { ErrorObject } from 'ajv';
import type { FastifySchemaCompiler } from 'fastify';
import { compileRequestSchema } from '../validation/ajv.ts';
import { oversizeArray, oversizeMessage } from '../validation/array-caps.ts';
import { withInexactErrors } from '../validation/exact-numbers.ts';

interface TextSchema {
  type?: string | string[];
  properties?: Record<string, TextSchema>;
  allOf?: TextSchema[];
  anyOf?: TextSchema[];
}

const matches = (v: unknown, t: string): boolean =>
  t === 'integer'
    ? Number.isInteger(v)
    : t === 'null'
      ? v === null
      : t === 'array'
        ? Array.isArray(v)
        : typeof v === t && !Array.isArray(v);

/** The value as the first of `types` it can be read as (Ajv's coercion rules for text); unchanged when none. */
function asType(value: unknown, types: string[]): { value: unknown; ok: boolean } {
  // A key sent once where one value is expected; a repeated one stays a list (and fails).
  const v = Array.isArray(value) && value.length === 1 && !types.includes('array') ? value[0] : value;
  if (types.some((t) => matches(v, t))) return { value: v, ok: true };
  if (typeof v !== 'string') return { value, ok: false };
  for (const t of types) {
    const n = Number(v);
    if (t === 'number' && v !== '' && !Number.isNaN(n)) return { value: n, ok: true };
    if (t === 'integer' && v !== '' && Number.isInteger(n)) return { value: n, ok: true };
    if (t === 'boolean' && (v === 'true' || v === 'false')) return { value: v === 'true', ok: true };
    if (t === 'null' && v === '') return { value: null, ok: true };
    if (t === 'array') return { value: [v], ok: true };
  }
  return { value, ok: false };
}

/** One path or query value converted for its schema; a union takes the first branch that can read it. */
function convert(schema: TextSchema, value: unknown): { value: unknown; ok: boolean } {
  if (schema.anyOf !== undefined) {
    for (const branch of schema.anyOf) {
      const r = convert(branch, value);
      if (r.ok) return r;
    }
    return { value, ok: false };
  }
  if (schema.type === undefined) return { value, ok: true };
  return asType(value, Array.isArray(schema.type) ? schema.type : [schema.type]);
}

const propertySchemas = (schema: TextSchema, key: string): TextSchema[] => [
  ...(schema.properties !== undefined && Object.hasOwn(schema.properties, key) ? [schema.properties[key]!] : []),
  ...(schema.allOf ?? []).flatMap((member) => propertySchemas(member, key)),
];

/** Converts the values of a path or query object in place. */
function convertText(schema: TextSchema, data: unknown): void {
  if (typeof data !== 'object' || data === null) return;
  const values = data as Record<string, unknown>;
  for (const key of Object.keys(values)) {
    for (const s of propertySchemas(schema, key)) {
      const r = convert(s, values[key]);
      if (r.ok) values[key] = r.value;
    }
  }
}

/**
 * For routes whose body a service checks (catalog writes: the feed service's item rules; order
 * intake: order-intake.ts), so that one rule set checks a body once, for the API and connectors
 * alike: the body's schema stays on the route for the OpenAPI document only. Params and query
 * strings keep the usual validation.
 */
export const bodyCheckedByService: FastifySchemaCompiler<unknown> = (def) =>
  def.httpPart === 'body' ? () => true : validatorCompiler(def);

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const validate = compileRequestSchema(schema as object);
  const check = Object.assign(
    (data: unknown, context?: object) => {
      if (httpPart === 'body') {
        const over = oversizeArray(schema, data);
        if (over !== undefined) {
          check.errors = [
            {
              instancePath: over.pointer,
              schemaPath: '',
              keyword: 'maxItems',
              params: { limit: over.max },
              message: oversizeMessage(over),
            },
          ];
          return false;
        }
      } else {
        convertText(schema as TextSchema, data);
      }
      const valid = validate(data, context as never);
      // A number parsing would have changed is its field's one error (not "must be number").
      check.errors = httpPart === 'body' ? (withInexactErrors(data, validate.errors) as ErrorObject[] | null | undefined) : validate.errors;
      return valid && check.errors === validate.errors;
    },
    { errors: null as ErrorObject[] | null | undefined, schemaEnv: validate.schemaEnv },
  );
  return check;
};
