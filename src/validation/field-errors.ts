// Ajv's errors as the `errors` of a 400 problem: one per field, by JSON pointer, with the API's
// codes (invalid_type, too_long...). Route bodies and the orders connectors hand in alike.
import type { FieldError } from '../errors.ts';
import { TIMESTAMP_MESSAGE, ZONED_TIMESTAMP_MESSAGE } from './timestamp.ts';

export interface AjvLikeError {
  instancePath: string;
  keyword: string;
  message?: string;
  params?: Record<string, unknown>;
}

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
  exclusiveMinimum: 'too_small',
  minItems: 'too_few',
  maxItems: 'too_many',
  pattern: 'invalid_format',
  format: 'invalid_format',
  multipleOf: 'invalid_value',
  additionalProperties: 'unknown_field',
  oneOf: 'invalid_value',
  inexactNumber: 'inexact_number',
};

/** Ajv errors as problem `errors`, one per field, pointing at the field itself (required included). */
export function fieldErrors(errors: AjvLikeError[]): FieldError[] {
  const out = new Map<string, FieldError>();
  for (const e of errors) {
    let pointer = e.instancePath;
    if (e.keyword === 'required' && typeof e.params?.missingProperty === 'string') pointer += `/${e.params.missingProperty}`;
    if (e.keyword === 'additionalProperties' && typeof e.params?.additionalProperty === 'string')
      pointer += `/${e.params.additionalProperty}`;
    const timestamp = e.keyword === 'format' && String(e.params?.format).startsWith('timestamp');
    const code = timestamp ? 'invalid_timestamp' : (codeOfKeyword[e.keyword] ?? 'invalid');
    const message =
      e.keyword === 'required'
        ? 'is required'
        : timestamp
          ? e.params?.format === 'timestamp-zone'
            ? ZONED_TIMESTAMP_MESSAGE
            : TIMESTAMP_MESSAGE
          : (e.message ?? 'is invalid');
    // anyOf/oneOf report each branch too; keep the first, most specific error of a field.
    if (!out.has(pointer)) out.set(pointer, { pointer, code, message });
  }
  return [...out.values()];
}
