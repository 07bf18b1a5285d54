// Every cell of the state table of INTERFACE.md: for each action, an item in each of the eight
// statuses either moves (204, new status, one history row; none when it already had it) or is
// refused (409 naming it with its status; nothing changes). The table is written out here
// again on purpose: the test checks the code against the document, not against itself.
import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.ts';
import { expectProblem, items, orderClient } from './helpers.ts';

const daemon = await useTestDaemon();
const c = await orderClient(daemon);

const STATUSES = ['pending', 'ready_to_ship', 'packed_by_marketplace', 'shipped', 'delivered', 'not_delivered', 'returned', 'cancelled'];

/** action -> [new status, allowed from] (INTERFACE.md, Orders). */
const TABLE: Record<string, [string, string[]]> = {
  pending: ['pending', ['pending', 'ready_to_ship']],
  ready_to_ship: ['ready_to_ship', ['pending', 'ready_to_ship']],
  packed_by_marketplace: ['packed_by_marketplace', ['pending', 'ready_to_ship', 'packed_by_marketplace']],
  ship: ['shipped', ['pending', 'ready_to_ship', 'shipped', 'not_delivered']],
  delivered: ['delivered', ['shipped', 'packed_by_marketplace', 'not_delivered', 'delivered']],
  not_delivered: ['not_delivered', ['shipped', 'packed_by_marketplace', 'not_delivered']],
  returned: ['returned', ['delivered', 'not_delivered', 'returned']],
  cancel: ['cancelled', ['pending', 'ready_to_ship', 'cancelled']],
};

/** Actions that bring a pending item to each status. */
const PATH: Record<string, string[]> = {
  pending: [],
  ready_to_ship: ['ready_to_ship'],
  packed_by_marketplace: ['packed_by_marketplace'],
  shipped: ['ship'],
  delivered: ['ship', 'delivered'],
  not_delivered: ['ship', 'not_delivered'],
  returned: ['ship', 'delivered', 'returned'],
  cancelled: ['cancel'],
};

describe.each(Object.entries(TABLE))('action %s', (action, [to, from]) => {
  it('moves an item from each allowed status and refuses every other', async () => {
    const orderPk = 1000 + Object.keys(TABLE).indexOf(action);
    await c.intake(orderPk, STATUSES.length);
    // Item k+1 is brought to STATUSES[k].
    for (const [k, status] of STATUSES.entries()) {
      for (const step of PATH[status]!) expect((await c.act(orderPk, step, items(k + 1))).statusCode).toBe(204);
    }
    expect(Object.values(await c.statuses(orderPk))).toEqual(STATUSES);
    const historyBefore = (await c.order(orderPk)).history.length;

    let expectedRows = historyBefore;
    for (const [k, status] of STATUSES.entries()) {
      const itemPk = k + 1;
      const res = await c.act(orderPk, action, items(itemPk));
      const order = await c.order(orderPk);
      const item = order.items.find((i) => i.item_pk === itemPk)!;
      if (from.includes(status)) {
        expect(res.statusCode, `${action} from ${status}`).toBe(204);
        expect(res.body).toBe('');
        expect(item.status).toBe(to);
        if (status !== to) {
          expectedRows++;
          expect(order.history.at(-1)).toMatchObject({ action, item_pks: [itemPk], from: status, to, source: `key:${c.keyPrefix}` });
        }
      } else {
        const problem = expectProblem(res, 409, 'invalid_transition');
        expect(problem.items, `${action} from ${status}`).toEqual([{ item_pk: itemPk, status }]);
        expect(problem.detail).toContain(`item ${itemPk} is ${status}`);
        expect(item.status).toBe(status);
      }
      expect(order.history).toHaveLength(expectedRows);
    }
  });
});
