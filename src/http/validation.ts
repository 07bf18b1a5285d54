// Two Ajv instances: bodies are checked strictly (a price sent as "10" is a wrong type, 400);
// path and query strings are coerced ("?page=2" is the integer 2). Every error is reported.
import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

const base: Options = { allErrors: true, strict: false, useDefaults: true, removeAdditional: false };
const strictAjv = addFormats(new Ajv({ ...base, coerceTypes: false }));
const coercingAjv = addFormats(new Ajv({ ...base, coerceTypes: 'array' }));

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? strictAjv : coercingAjv).compile(schema as object);
