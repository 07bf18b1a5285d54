// What clients read of an order beyond its items' statuses, derived in ONE place as pure data
// and functions: its `progress` (the steps clients compute the order's status from) and its
// `actions` (what the shop is expected to do next). docs/api.md has the same table.
import type { ItemStatus } from './order-state.ts';

export const ADDRESS_FIELDS = [
  'first_name',
  'last_name',
  'address',
  'street_name',
  'neighborhood',
  'reference',
  'city',
  'region',
  'postal_code',
  'country',
  'phone',
  'email',
] as const;

export const PROGRESS_STEPS = ['paid', 'ready_to_ship', 'shipped', 'delivered', 'canceled', 'failed', 'refunded'] as const;
export type ProgressName = (typeof PROGRESS_STEPS)[number];

/**
 * Per step, the statuses in which an item counts as having reached it. A step is done when the
 * order has an item that is not cancelled and every such item is in one of them (cancelled
 * items are left out: an order of which one item was cancelled and the other shipped has
 * shipped). `canceled` is done when every item is cancelled; `paid` when the buyer has paid.
 */
export const PROGRESS_TABLE: { readonly [S in Exclude<ProgressName, 'paid' | 'canceled'>]: readonly ItemStatus[] } = {
  ready_to_ship: ['ready_to_ship', 'packed_by_marketplace', 'shipped', 'delivered', 'not_delivered', 'returned'],
  shipped: ['packed_by_marketplace', 'shipped', 'delivered', 'not_delivered', 'returned'],
  delivered: ['delivered'],
  failed: ['not_delivered'],
  refunded: ['returned'],
};

export interface ProgressInput {
  paid: boolean;
  statuses: readonly ItemStatus[];
}

export function progressOf({ paid, statuses }: ProgressInput): { name: ProgressName; status: 'done' | 'pending' }[] {
  const live = statuses.filter((s) => s !== 'cancelled');
  const reached = (among: readonly ItemStatus[]): boolean => live.length > 0 && live.every((s) => among.includes(s));
  const done: Record<ProgressName, boolean> = {
    paid,
    ready_to_ship: reached(PROGRESS_TABLE.ready_to_ship),
    shipped: reached(PROGRESS_TABLE.shipped),
    delivered: reached(PROGRESS_TABLE.delivered),
    canceled: statuses.length > 0 && live.length === 0,
    failed: reached(PROGRESS_TABLE.failed),
    refunded: reached(PROGRESS_TABLE.refunded),
  };
  return PROGRESS_STEPS.map((name) => ({ name, status: done[name] ? 'done' : 'pending' }));
}

export interface ActionItem {
  status: ItemStatus;
  ff_type: string;
  carrier: string | null;
  tracking_code: string | null;
}

/**
 * What the shop is expected to do next, from the items it fulfils itself (ff_type `seller`;
 * the marketplace fulfils the others): `set_ready_to_ship` while an item is pending,
 * `set_shipped` while one is ready to ship or waits for a new attempt (not_delivered),
 * `print_delivery_label` while a shipped item's shipment has a carrier and tracking code.
 */
export function actionsOf(items: readonly ActionItem[]): string[] {
  const own = items.filter((i) => i.ff_type === 'seller');
  const out: string[] = [];
  if (own.some((i) => i.status === 'pending')) out.push('set_ready_to_ship');
  if (own.some((i) => i.status === 'ready_to_ship' || i.status === 'not_delivered')) out.push('set_shipped');
  if (own.some((i) => i.status === 'shipped' && i.carrier !== null && i.tracking_code !== null)) out.push('print_delivery_label');
  return out;
}

type Stored = Record<string, unknown> | null | undefined;
const text = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** A stored address with every field, null when unknown; null when none is known (legacy rows stored {}). */
export function addressOf(stored: Stored): Record<(typeof ADDRESS_FIELDS)[number], string | null> | null {
  if (stored === null || stored === undefined || Object.keys(stored).length === 0) return null;
  return Object.fromEntries(ADDRESS_FIELDS.map((f) => [f, text(stored[f])])) as Record<(typeof ADDRESS_FIELDS)[number], string | null>;
}

/** Only the address fields that were sent (what is stored). */
export function addressToStore(input: Stored): Record<string, string> | null {
  if (input === null || input === undefined) return null;
  const out: Record<string, string> = {};
  for (const f of ADDRESS_FIELDS) if (typeof input[f] === 'string') out[f] = input[f];
  return out;
}

export function customerOf(stored: Stored): { email: string | null; first_name: string | null; last_name: string | null } {
  return { email: text(stored?.email), first_name: text(stored?.first_name), last_name: text(stored?.last_name) };
}
