// The order's `progress` and `actions` (src/orders/order-view.ts) for every combination of
// item statuses: the one-item table is written out here (as docs/api.md has it); an order of
// several items has reached a step when each of its items that is not cancelled has.
import { describe, expect, it } from 'vitest';
import { ITEM_STATUSES, type ItemStatus } from '../../src/orders/order-state.ts';
import { actionsOf, progressOf, PROGRESS_STEPS } from '../../src/orders/order-view.ts';

/** Steps done for an order of one item in each status (paid aside). */
const ONE_ITEM: Record<ItemStatus, string[]> = {
  pending: [],
  ready_to_ship: ['ready_to_ship'],
  packed_by_marketplace: ['ready_to_ship', 'shipped'],
  shipped: ['ready_to_ship', 'shipped'],
  delivered: ['ready_to_ship', 'shipped', 'delivered'],
  not_delivered: ['ready_to_ship', 'shipped', 'failed'],
  returned: ['ready_to_ship', 'shipped', 'refunded'],
  cancelled: ['canceled'],
};

const doneOf = (statuses: ItemStatus[], paid = false): string[] =>
  progressOf({ paid, statuses })
    .filter((s) => s.status === 'done')
    .map((s) => s.name);

/** The rule for several items, from the one-item table: what every live item has done; all cancelled: canceled. */
function expected(statuses: ItemStatus[]): string[] {
  const live = statuses.filter((s) => s !== 'cancelled');
  if (live.length === 0) return ['canceled'];
  return PROGRESS_STEPS.filter((step) => live.every((s) => ONE_ITEM[s].includes(step)));
}

describe('progress', () => {
  it('lists the seven steps in order, each done or pending', () => {
    expect(progressOf({ paid: true, statuses: ['pending'] })).toEqual(
      ['paid', 'ready_to_ship', 'shipped', 'delivered', 'canceled', 'failed', 'refunded'].map((name) => ({
        name,
        status: name === 'paid' ? 'done' : 'pending',
      })),
    );
  });

  it.each(ITEM_STATUSES)('one item %s', (status) => {
    expect(doneOf([status])).toEqual(ONE_ITEM[status]);
    expect(doneOf([status], true)).toEqual(['paid', ...ONE_ITEM[status]]);
  });

  it('every combination of two and of three items', () => {
    let checked = 0;
    for (const a of ITEM_STATUSES) {
      for (const b of ITEM_STATUSES) {
        expect(doneOf([a, b]), `${a}, ${b}`).toEqual(expected([a, b]));
        for (const c of ITEM_STATUSES) expect(doneOf([a, b, c]), `${a}, ${b}, ${c}`).toEqual(expected([a, b, c]));
        checked++;
      }
    }
    expect(checked).toBe(64);
  });

  it('examples as clients read them', () => {
    // One item cancelled, the other shipped: the order has shipped.
    expect(doneOf(['cancelled', 'shipped'], true)).toEqual(['paid', 'ready_to_ship', 'shipped']);
    // One delivered, one not: shipped, neither delivered nor failed yet.
    expect(doneOf(['delivered', 'not_delivered'])).toEqual(['ready_to_ship', 'shipped']);
    // Nothing done for an order with no items (never stored, but defined).
    expect(doneOf([])).toEqual([]);
  });
});

describe('actions', () => {
  const item = (status: ItemStatus, extra: Partial<{ ff_type: string; carrier: string | null; tracking_code: string | null }> = {}) => ({
    status,
    ff_type: 'seller',
    carrier: null,
    tracking_code: null,
    ...extra,
  });

  it('what the shop does next, from the items it fulfils', () => {
    expect(actionsOf([item('pending')])).toEqual(['set_ready_to_ship']);
    expect(actionsOf([item('pending'), item('ready_to_ship')])).toEqual(['set_ready_to_ship', 'set_shipped']);
    expect(actionsOf([item('not_delivered')])).toEqual(['set_shipped']);
    expect(actionsOf([item('shipped')])).toEqual([]);
    expect(actionsOf([item('shipped', { carrier: 'DHL', tracking_code: 'T1' })])).toEqual(['print_delivery_label']);
    expect(actionsOf([item('pending', { ff_type: 'marketplace' })])).toEqual([]);
    for (const s of ['delivered', 'returned', 'cancelled', 'packed_by_marketplace'] as const) expect(actionsOf([item(s)])).toEqual([]);
  });
});
