// Concurrent actions on one order, over real HTTP: they serialize on the order row, none is
// lost, and the history is one consistent chain.
import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.ts';
import { orderClient } from './helpers.ts';

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
    const replies = await Promise.all(Array.from({ length: 20 }, (_, i) =>
      post(o, 'ship', { items: [{ item_pk: i + 1 }], carrier: 'DHL', tracking_code: `T${i + 1}` })));
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
      status = h.to;
    }
    expect(order.items[0]!.status).toBe(status);
    expect(history.filter((h) => h.to === 'cancelled')).toHaveLength(1);
    expect(status).toBe('cancelled');
    // Refusals only after the cancel: 409s are exactly the moves that found the item cancelled.
    expect(statuses.filter((s) => s === 204).length).toBeGreaterThanOrEqual(history.length);
  });

  it('the same order taken in 10 times at once: one 201, nine 200, one order', async () => {
    const body = JSON.stringify({ order_pk: 3, items: [{ item_pk: 1, sku: 'A', quantity: 1, price: 1 }] });
    const replies = await Promise.all(Array.from({ length: 10 }, () =>
      fetch(`${daemon.url}${c.base}`, { method: 'POST', headers: { ...c.auth, 'content-type': 'application/json' }, body })));
    expect(replies.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
    const order = await c.order(3);
    expect(order.items).toHaveLength(1);
    expect(order.history).toHaveLength(1);
  });
});
