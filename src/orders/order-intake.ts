// The rules of an order's intake body that run before anything is stored, for the API and for
// connectors alike: the schema (TypeBox), then what it cannot say (pk agreeing with order_pk,
// the path's shop and marketplace, real timestamps, item_pks unique).
import { Value } from 'typebox/value';
import type { FieldError } from '../errors.ts';
import { parseTimestamp, TIMESTAMP_MESSAGE } from '../validation/timestamp.ts';
import { OrderIntake, withPkAliases } from './orders.schemas.ts';

/** 400 errors of an intake body by pointer: the schema's, then the rules it cannot say. */
export function intakeErrors(input: unknown, shopPk: number, marketplacePk: number): FieldError[] {
  const errors: FieldError[] = [...Value.Errors(OrderIntake, withPkAliases(input))].map((e) => {
    const missing = e.keyword === 'required' ? (e.params as { requiredProperties?: string[] }).requiredProperties?.[0] : undefined;
    return { pointer: missing === undefined ? e.instancePath : `${e.instancePath}/${missing}`, code: e.keyword, message: e.message };
  });
  if (errors.length > 0) return errors;
  const order = withPkAliases(input) as OrderIntake;
  const same = (a: number, b: number | undefined, pointer: string, what: string): void => {
    if (b !== undefined && a !== b) errors.push({ pointer, code: 'mismatch', message: `must equal ${what} (${b}) when both are sent` });
  };
  same(order.order_pk, order.pk, '/order_pk', 'pk');
  if (order.shop_pk !== undefined && order.shop_pk !== shopPk) errors.push({ pointer: '/shop_pk', code: 'mismatch', message: `must be the path's shop (${shopPk})` });
  if (order.marketplace_pk !== undefined && order.marketplace_pk !== marketplacePk) {
    errors.push({ pointer: '/marketplace_pk', code: 'mismatch', message: `must be the path's marketplace (${marketplacePk})` });
  }
  // The route's validator checks the timestamp format; connectors' orders come through here only.
  if (order.created_at !== undefined && parseTimestamp(order.created_at) === undefined) {
    errors.push({ pointer: '/created_at', code: 'invalid_timestamp', message: TIMESTAMP_MESSAGE });
  }
  const seen = new Set<number>();
  order.items.forEach((item, index) => {
    same(item.item_pk, item.pk, `/items/${index}/item_pk`, 'pk');
    const pk = item.item_pk;
    if (seen.has(pk)) errors.push({ pointer: `/items/${index}/item_pk`, code: 'duplicate_item', message: `item ${pk} is listed more than once` });
    seen.add(pk);
  });
  return errors;
}
