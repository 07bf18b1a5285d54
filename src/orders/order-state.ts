// The item state machine of INTERFACE.md (Orders), as ONE table: every rule about which
// action may move an item from which status lives here, nowhere else. The service, the API
// docs and the tests read this table; there is no switch per action.

export const ITEM_STATUSES = [
  'pending',
  'ready_to_ship',
  'packed_by_marketplace',
  'shipped',
  'delivered',
  'not_delivered',
  'returned',
  'cancelled',
] as const;
export type ItemStatus = (typeof ITEM_STATUSES)[number];

export const ORDER_ACTIONS = [
  'pending',
  'ready_to_ship',
  'packed_by_marketplace',
  'ship',
  'delivered',
  'not_delivered',
  'returned',
  'cancel',
] as const;
export type OrderAction = (typeof ORDER_ACTIONS)[number];

/** An order's status: its items' common status, else `partial` (all cancelled: `cancelled`). */
export const ORDER_STATUSES = [...ITEM_STATUSES, 'partial'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export interface Move {
  /** The status the action gives an item. */
  to: ItemStatus;
  /** The statuses an item may have for the action to apply (`to` itself included: a no-op). */
  from: readonly ItemStatus[];
}

export const STATE_TABLE: { readonly [A in OrderAction]: Move } = {
  pending: { to: 'pending', from: ['pending', 'ready_to_ship'] },
  ready_to_ship: { to: 'ready_to_ship', from: ['pending', 'ready_to_ship'] },
  packed_by_marketplace: { to: 'packed_by_marketplace', from: ['pending', 'ready_to_ship', 'packed_by_marketplace'] },
  // shipped -> shipped updates the shipping data; not_delivered -> shipped is a new attempt.
  ship: { to: 'shipped', from: ['pending', 'ready_to_ship', 'shipped', 'not_delivered'] },
  delivered: { to: 'delivered', from: ['shipped', 'packed_by_marketplace', 'not_delivered', 'delivered'] },
  not_delivered: { to: 'not_delivered', from: ['shipped', 'packed_by_marketplace', 'not_delivered'] },
  returned: { to: 'returned', from: ['delivered', 'not_delivered', 'returned'] },
  cancel: { to: 'cancelled', from: ['pending', 'ready_to_ship', 'cancelled'] },
};

export const canMove = (action: OrderAction, status: ItemStatus): boolean => STATE_TABLE[action].from.includes(status);

/**
 * The items an action applies to when the request names none: every item that is not
 * cancelled, and for `cancel` every item (so a repeated cancel is a no-op, not a 409).
 */
export const defaultTargets = <T extends { status: ItemStatus }>(action: OrderAction, items: readonly T[]): T[] =>
  action === 'cancel' ? [...items] : items.filter((i) => i.status !== 'cancelled');

/** The order's status derived from its items' statuses. */
export function orderStatusOf(statuses: readonly ItemStatus[]): OrderStatus {
  const first = statuses[0];
  if (first === undefined) return 'pending';
  return statuses.every((s) => s === first) ? first : 'partial';
}
