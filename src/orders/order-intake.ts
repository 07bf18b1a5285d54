// The rules of an order's intake body that run before anything is stored, for the API and for
// connectors alike, and the only check of that body (the route declares its schema for the
// OpenAPI document only): an array past its cap, then the schema (the one Ajv), then what it
// cannot say (pk agreeing with order_pk, the path's shop and marketplace, real timestamps,
// item_pks unique). Every problem is listed at once: the rules after the schema run on whatever
// fields the schema found well-formed.
import { Type } from 'typebox';
import type { FieldError } from '../errors.ts';
import { validate } from '../validation/ajv.ts';
import { oversizeArray, oversizeMessage } from '../validation/array-caps.ts';
import { fieldErrors } from '../validation/field-errors.ts';
import { parseTimestamp, ZONED_TIMESTAMP_MESSAGE } from '../validation/timestamp.ts';
import { OrderIntake, withPkAliases } from './orders.schemas.ts';

/**
 * The intake schema with created_at as any text: the timestamp rule below says what is wrong
 * with it, once, in order with the other rules.
 */
const IntakeShape = Type.Object({ ...OrderIntake.properties, created_at: Type.Optional(Type.String()) });

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isId = (v: unknown): v is number => Number.isInteger(v);

/**
 * An intake body as the order service takes it, for the API and connectors alike: its aliases
 * resolved (withPkAliases, once here), then the 400 errors by pointer: the schema's, then the
 * rules it cannot say. The service stores the body returned.
 */
export function checkIntake(input: unknown, shopPk: number, marketplacePk: number): { body: unknown; errors: FieldError[] } {
  const body = withPkAliases(input);
  return { body, errors: intakeErrors(body, shopPk, marketplacePk) };
}

function intakeErrors(body: unknown, shopPk: number, marketplacePk: number): FieldError[] {
  // An array over its cap (items, tags) is the body's one error, found before its elements are checked.
  const over = oversizeArray(IntakeShape, body);
  if (over !== undefined) return [{ pointer: over.pointer, code: 'too_many', message: oversizeMessage(over) }];
  const errors = fieldErrors(validate(IntakeShape, body));
  if (!isObject(body)) return errors;
  // A rule reads only fields the schema found well-formed: no field gets a second error for the same fault.
  const wrong = new Set(errors.map((e) => e.pointer));
  const ok = (pointer: string): boolean => !wrong.has(pointer);
  const same = (a: unknown, b: unknown, pointer: string, other: string, what: string): void => {
    if (isId(a) && isId(b) && ok(pointer) && ok(other) && a !== b)
      errors.push({ pointer, code: 'mismatch', message: `must equal ${what} (${b}) when both are sent` });
  };
  same(body.order_pk, body.pk, '/order_pk', '/pk', 'pk');
  if (isId(body.shop_pk) && ok('/shop_pk') && body.shop_pk !== shopPk)
    errors.push({ pointer: '/shop_pk', code: 'mismatch', message: `must be the path's shop (${shopPk})` });
  if (isId(body.marketplace_pk) && ok('/marketplace_pk') && body.marketplace_pk !== marketplacePk) {
    errors.push({ pointer: '/marketplace_pk', code: 'mismatch', message: `must be the path's marketplace (${marketplacePk})` });
  }
  if (typeof body.created_at === 'string' && parseTimestamp(body.created_at, true) === undefined) {
    errors.push({ pointer: '/created_at', code: 'invalid_timestamp', message: ZONED_TIMESTAMP_MESSAGE });
  }
  const seen = new Set<number>();
  (Array.isArray(body.items) ? body.items : []).forEach((item: unknown, index) => {
    if (!isObject(item)) return;
    const pointer = `/items/${index}/item_pk`;
    same(item.item_pk, item.pk, pointer, `/items/${index}/pk`, 'pk');
    const pk = item.item_pk;
    if (!isId(pk) || !ok(pointer)) return;
    if (seen.has(pk)) errors.push({ pointer, code: 'duplicate_item', message: `item ${pk} is listed more than once` });
    seen.add(pk);
  });
  return errors;
}
