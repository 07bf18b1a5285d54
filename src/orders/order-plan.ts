// What one action would do to an order's items, decided from the state table before any
// write: which items it targets, which refuse to move (409), which change and from where.
import type { FieldError } from '../errors.ts';
import { STATE_TABLE, canMove, defaultTargets, type ItemStatus, type OrderAction } from './order-state.ts';

export interface PlanItem {
  id: number;
  item_pk: number;
  status: ItemStatus;
  shipment_id: number | null;
}

/** 400 errors for named item_pks that are not in the order or are named twice, by pointer. */
export function namedItemErrors(items: readonly PlanItem[], named: readonly number[]): FieldError[] {
  const known = new Set(items.map((i) => i.item_pk));
  const seen = new Set<number>();
  const errors: FieldError[] = [];
  named.forEach((pk, index) => {
    const pointer = `/items/${index}/item_pk`;
    if (!known.has(pk)) errors.push({ pointer, code: 'unknown_item', message: `item ${pk} is not an item of this order` });
    else if (seen.has(pk)) errors.push({ pointer, code: 'duplicate_item', message: `item ${pk} is named more than once` });
    seen.add(pk);
  });
  return errors;
}

/** The items an action applies to: those named (in the order named), else the defaults. */
export function targetsOf<T extends PlanItem>(action: OrderAction, items: readonly T[], named: readonly number[] | undefined): T[] {
  if (named === undefined) return defaultTargets(action, items);
  const byPk = new Map(items.map((i) => [i.item_pk, i]));
  return named.map((pk) => byPk.get(pk)!);
}

/** Targets the state table does not let this action move. */
export const refusedOf = <T extends PlanItem>(action: OrderAction, targets: readonly T[]): T[] =>
  targets.filter((t) => !canMove(action, t.status));

export interface StatusGroup<T> {
  from: ItemStatus;
  items: T[];
}

/** Targets whose status changes, grouped by the status they leave (one history row each). */
export function movesOf<T extends PlanItem>(action: OrderAction, targets: readonly T[]): StatusGroup<T>[] {
  const to = STATE_TABLE[action].to;
  const groups = new Map<ItemStatus, T[]>();
  for (const t of targets) {
    if (t.status === to) continue;
    const list = groups.get(t.status);
    if (list === undefined) groups.set(t.status, [t]);
    else list.push(t);
  }
  return [...groups].map(([from, list]) => ({ from, items: list }));
}

/** The 409's detail line: each refused item with its current status, and what the action needs. */
export function refusalMessage(action: OrderAction, refused: readonly PlanItem[]): string {
  const list = refused.map((i) => `item ${i.item_pk} is ${i.status}`).join(', ');
  const what = refused.length === 0 ? 'the order has no item it applies to' : list;
  return `Cannot apply ${action}: ${what}; ${action} moves items from ${STATE_TABLE[action].from.join(', ')}.`;
}
