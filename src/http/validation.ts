// Two Ajv instances: bodies are checked strictly (a price sent as "10" is a wrong type, 400);
// path and query strings are coerced ("?page=2" is the integer 2). Every error is reported.
// Both follow the shared request rules (src/platform/ajv.ts). A body's arrays are measured
// against their maxItems first: one over it is the only error reported, at once.
import type { ErrorObject } from 'ajv';
import type { FastifySchemaCompiler } from 'fastify';
import { compileRequestSchema, createAjv } from '../platform/ajv.ts';
import { oversizeArray, oversizeMessage } from '../platform/array-caps.ts';

const base = { useDefaults: true, removeAdditional: false } as const;
const strictAjv = createAjv({ ...base, coerceTypes: false });
const coercingAjv = createAjv({ ...base, coerceTypes: 'array' });

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  if (httpPart !== 'body') return compileRequestSchema(coercingAjv, schema as object);
  const validate = compileRequestSchema(strictAjv, schema as object);
  const check = Object.assign((data: unknown, context?: object) => {
    const over = oversizeArray(schema, data);
    if (over !== undefined) {
      check.errors = [{ instancePath: over.pointer, schemaPath: '', keyword: 'maxItems', params: { limit: over.max }, message: oversizeMessage(over) }];
      return false;
    }
    const ok = validate(data, context as never);
    check.errors = validate.errors;
    return ok;
  }, { errors: null as ErrorObject[] | null | undefined, schemaEnv: validate.schemaEnv });
  return check;
};
