// Concurrent actions on one order, over real HTTP: they serialize on the order row, none is
// lost, and the history is one consistent chain. An action locks the order row before it
// reads, so it applies on top of whatever the action before it wrote.
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.ts';
import type { ActionInput } from '../../src/orders/orders.service.ts';
import { useTestDaemon } from '../helpers/daemon.ts';
import { holdOrderLock, orderClient } from './helpers.ts';

const daemon = await useTestDaemon();
const c = await orderClient(daemon);

const post = (orderPk: number, action: string, body: unknown = {}) =>
  fetch(`${daemon.url}${c.base}${orderPk}/${action}/`, {
    method: 'POST',
    headers: { ...c.auth, 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
  });

describe('20 concurrent actions on one order', () => {
  it('shipping 20 items at once: every shipment and history row is kept, the order ends shipped', async () => {
    const o = await c.intake(1, 20);
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) => post(o, 'ship', { items: [{ item_pk: i + 1 }], carrier: 'DHL', tracking_code: `T${i + 1}` })),
    );
    expect(replies.map((r) => r.status)).toEqual(Array(20).fill(204));
    const order = await c.order(o);
    expect(order.status).toBe('shipped');
    expect(order.items.every((i) => i.status === 'shipped')).toBe(true);
    expect(order.items.map((i) => i.shipment?.tracking_code)).toEqual(Array.from({ length: 20 }, (_, i) => `T${i + 1}`));
    expect(order.shipments).toHaveLength(20);
    const shipRows = order.history.filter((h) => h.action === 'ship');
    expect(shipRows.flatMap((h) => h.item_pks).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });

  it('racing moves on one item: each 204 that changed something wrote one row, and the rows chain', async () => {
    const o = await c.intake(2, 1);
    const actions = Array.from({ length: 20 }, (_, i) => (i === 13 ? 'cancel' : i % 2 === 0 ? 'ready_to_ship' : 'pending'));
    const replies = await Promise.all(actions.map((a) => post(o, a)));
    const statuses = replies.map((r) => r.status);
    expect(statuses.every((s) => s === 204 || s === 409)).toBe(true);
    const order = await c.order(o);
    const history = order.history.slice(1);
    // Each row leaves the status the previous one reached; the last one is the item's status.
    let status = 'pending';
    for (const h of history) {
      expect(h.from).toBe(status);
      expect(h.to).not.toBe(h.from);
      status = h.to!;
    }
    expect(order.items[0]!.status).toBe(status);
    expect(history.filter((h) => h.to === 'cancelled')).toHaveLength(1);
    expect(status).toBe('cancelled');
    // Refusals only after the cancel: 409s are exactly the moves that found the item cancelled.
    expect(statuses.filter((s) => s === 204).length).toBeGreaterThanOrEqual(history.length);
  });

  it('two actions waiting on the order row lock: the second reads what the first wrote and applies on top of it', async () => {
    const o = await c.intake(4, 2);
    const hold = await holdOrderLock(daemon, c, o);
    const replies = Promise.all([
      post(o, 'ship', { items: [{ item_pk: 1 }], carrier: 'DHL', tracking_code: 'A1' }),
      post(o, 'ship', { items: [{ item_pk: 2 }], carrier: 'UPS', tracking_code: 'B2' }),
    ]);
    await hold.waiting(2);
    await hold.release();
    expect((await replies).map((r) => r.status)).toEqual([204, 204]);
    const order = await c.order(o);
    // Planned from a read taken before the other's write, the second would leave the order `partial`.
    expect(order.status).toBe('shipped');
    expect(order.items.map((i) => [i.status, i.shipment?.tracking_code])).toEqual([
      ['shipped', 'A1'],
      ['shipped', 'B2'],
    ]);
    expect(order.shipments).toHaveLength(2);
    expect(order.history.slice(1).map((h) => [h.action, h.item_pks.length, h.from, h.to])).toEqual([
      ['ship', 1, 'pending', 'shipped'],
      ['ship', 1, 'pending', 'shipped'],
    ]);
  });

  it('ten actions of the service waiting on the lock all apply; then a repeat, a refusal and an unknown order', async () => {
    const orders = daemon.services.orders;
    const ship = (orderPk: number, item: number) =>
      orders.applyAction({
        shopPk: c.shopPk,
        marketplacePk: c.mp,
        orderPk,
        action: 'ship',
        items: [item],
        shipping: { tracking_code: `L${item}` },
        source: 'connector:test',
      });
    const o = await c.intake(5, 10);
    const hold = await holdOrderLock(daemon, c, o);
    const results = Promise.all(Array.from({ length: 10 }, (_, i) => ship(o, i + 1)));
    await hold.waiting(1);
    await hold.release();
    expect(await results).toEqual(Array(10).fill({ changed: true }));
    const order = await c.order(o);
    expect(order.status).toBe('shipped');
    expect(order.items.map((i) => i.shipment?.tracking_code)).toEqual(Array.from({ length: 10 }, (_, i) => `L${i + 1}`));
    expect(order.history.slice(1).map((h) => h.from)).toEqual(Array(10).fill('pending'));
    expect(await ship(o, 1)).toEqual({ changed: false });
    await expect(
      orders.applyAction({ shopPk: c.shopPk, marketplacePk: c.mp, orderPk: o, action: 'pending', source: 'connector:test' }),
    ).rejects.toMatchObject({ status: 409, code: 'invalid_transition' });
    await expect(ship(999, 1)).rejects.toMatchObject({ status: 404 });
  });

  it('the same order taken in 10 times at once: one 201, nine 200, one order', async () => {
    const body = JSON.stringify({ order_pk: 3, items: [{ item_pk: 1, sku: 'A', quantity: 1, price: 1 }] });
    const replies = await Promise.all(
      Array.from({ length: 10 }, () =>
        fetch(`${daemon.url}${c.base}`, { method: 'POST', headers: { ...c.auth, 'content-type': 'application/json' }, body }),
      ),
    );
    expect(replies.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
    const order = await c.order(3);
    expect(order.items).toHaveLength(1);
    expect(order.history).toHaveLength(1);
  });
});

describe('concurrent actions on many orders', () => {
  it('each order gets exactly its own action, and a refusal of one does not fail the others', async () => {
    const act = (orderPk: number, action: ActionInput['action'], rest: Partial<ActionInput> = {}) =>
      daemon.services.orders
        .applyAction({ shopPk: c.shopPk, marketplacePk: c.mp, orderPk, action, source: 'connector:test', ...rest })
        .then(
          (r) => (r.changed ? 'changed' : 'no-op'),
          (e: unknown) => (e instanceof AppError ? e.status : Promise.reject(e)),
        );
    const orders = Array.from({ length: 60 }, (_, i) => 200 + i);
    for (const o of orders) await c.intake(o, 2);
    const replies = await Promise.all(
      orders.map((o, i) =>
        i % 10 === 5
          ? act(o, 'delivered')
          : act(o, i % 3 === 0 ? 'cancel' : 'ship', i % 3 === 0 ? {} : { items: [1], shipping: { tracking_code: `M${o}` } }),
      ),
    );
    expect(replies).toEqual(orders.map((_, i) => (i % 10 === 5 ? 409 : 'changed')));
    for (const [i, o] of orders.entries()) {
      const order = await c.order(o);
      if (i % 10 === 5) {
        expect(order.history).toHaveLength(1);
      } else if (i % 3 === 0) {
        expect(order.status).toBe('cancelled');
        expect(order.shipments).toEqual([]);
      } else {
        expect(order.items.map((x) => [x.status, x.shipment?.tracking_code ?? null])).toEqual([
          ['shipped', `M${o}`],
          ['pending', null],
        ]);
        expect(order.history.slice(1).map((h) => [h.action, h.item_pks])).toEqual([['ship', [1]]]);
      }
    }
  });
});
