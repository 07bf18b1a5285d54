// An action on an order this process acted on lately is planned from the state its last write
// left and written in one round trip; concurrent actions share one statement and one commit.
// What a user sees must not change: the same outcomes as planning from a fresh read, also when
// another replica changed the order meanwhile or the shop got a webhook since.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.ts';
import { OrderService, type ActionInput } from '../../src/orders/orders.service.ts';
import { useTestDaemon } from '../helpers/daemon.ts';
import { orderClient, orderRaces, type OrderJson } from './helpers.ts';

const received: string[] = [];
const receiver = http.createServer((req, res) => {
  let body = '';
  req.on('data', (chunk: Buffer) => (body += chunk.toString()));
  req.on('end', () => {
    received.push(body);
    res.writeHead(204).end();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

const daemon = await useTestDaemon();
const c = await orderClient(daemon);
const { db } = daemon.connection;
/** This process's service (remembers orders) and another replica's: a second service, same database. */
const here = daemon.services.orders;
const replica = new OrderService(db, daemon.services.marketplaces, daemon.services.webhooks);
/** A service that remembers nothing: every action plans from a fresh read. */
const reading = new OrderService(db, daemon.services.marketplaces, daemon.services.webhooks, { recentOrders: 0 });

const act = (service: OrderService, orderPk: number, action: ActionInput['action'], rest: Partial<ActionInput> = {}) =>
  service.applyAction({ shopPk: c.shopPk, marketplacePk: c.mp, orderPk, action, source: 'connector:test', ...rest })
    .then((r) => (r.changed ? 'changed' : 'no-op'), (e: unknown) => (e instanceof AppError ? e.status : Promise.reject(e)));

/** What a user reads of an order, without ids and times (which differ between two orders). */
function shape(o: OrderJson): unknown {
  const ship = (id: number | null) => (id === null ? null : o.shipments.findIndex((s) => s.id === id));
  return {
    status: o.status,
    items: o.items.map((i) => [i.item_pk, i.status, i.shipment?.tracking_code ?? null, i.shipment?.carrier ?? null]),
    shipments: o.shipments.map((s) => [s.item_pks, s.carrier, s.tracking_code, s.delivery_time, s.comments]),
    history: o.history.map((h) => [h.action, h.item_pks, h.from, h.to, ship(h.shipment_id)]),
  };
}

describe('actions planned from what this process last wrote', () => {
  it('give the same replies and the same order as actions planned from a fresh read, with no lost race', async () => {
    const steps: [ActionInput['action'], Partial<ActionInput>][] = [
      ['ready_to_ship', {}],
      ['ship', { items: [1, 2], shipping: { carrier: 'DHL', tracking_code: 'T1', delivery_time: 2 } }],
      ['ship', { items: [1], shipping: { tracking_code: 'T2' } }],
      ['ship', { items: [1], shipping: { tracking_code: 'T2' } }],
      ['ship', { items: [3], shipping: { carrier: 'UPS', tracking_code: 'T3', comments: 'fragile' } }],
      ['not_delivered', { items: [3] }],
      ['ship', { items: [3], shipping: { carrier: 'UPS', tracking_code: 'T4' } }],
      ['delivered', { items: [1, 2] }],
      ['cancel', {}],
      ['returned', { items: [1] }],
      ['returned', { items: [1] }],
      ['ship', { items: [9] }],
      ['delivered', { items: [3] }],
    ];
    const [remembered, read] = [await c.intake(101, 3), await c.intake(102, 3)];
    const before = await orderRaces(daemon);
    const replies: [unknown, unknown][] = [];
    for (const [action, rest] of steps) replies.push([await act(here, remembered, action, rest), await act(reading, read, action, rest)]);
    expect(replies.map(([a]) => a)).toEqual(['changed', 'changed', 'changed', 'no-op', 'changed', 'changed', 'changed', 'changed', 409, 'changed', 'no-op', 400, 'changed']);
    expect(replies.map(([, b]) => b)).toEqual(replies.map(([a]) => a));
    expect(shape(await c.order(remembered))).toEqual(shape(await c.order(read)));
    // Each write planned from memory found the order as remembered: none had to plan again.
    expect((await orderRaces(daemon)).replanned - before.replanned).toBe(0);
  });

  it('an order another replica changed meanwhile: the write finds it changed and the action is planned again from it', async () => {
    const o = await c.intake(103, 2);
    expect(await act(here, o, 'ready_to_ship')).toBe('changed');
    expect(await act(replica, o, 'ship', { items: [1], shipping: { carrier: 'DHL', tracking_code: 'R1' } })).toBe('changed');
    const before = await orderRaces(daemon);
    // Remembered: both items ready_to_ship. Stored: item 1 shipped. A ship of both with a new
    // code moves item 2 into a new shipment and rewrites item 1's.
    expect(await act(here, o, 'ship', { shipping: { carrier: 'DHL', tracking_code: 'R2' } })).toBe('changed');
    expect((await orderRaces(daemon)).replanned - before.replanned).toBe(1);
    const order = await c.order(o);
    expect(order.items.map((i) => [i.status, i.shipment?.tracking_code])).toEqual([['shipped', 'R2'], ['shipped', 'R2']]);
    expect(order.shipments).toHaveLength(2);
    expect(order.history.slice(1).map((h) => [h.action, h.item_pks, h.from, h.to])).toEqual([
      ['ready_to_ship', [1, 2], 'pending', 'ready_to_ship'],
      ['ship', [1], 'ready_to_ship', 'shipped'],
      ['ship', [2], 'ready_to_ship', 'shipped'],
      ['ship', [1], 'shipped', 'shipped'],
    ]);

    // The replica cancels nothing it may not: a refusal is decided from the stored order too.
    const p = await c.intake(104, 1);
    expect(await act(here, p, 'ready_to_ship')).toBe('changed');
    expect(await act(replica, p, 'cancel')).toBe('changed');
    expect(await act(here, p, 'ship')).toBe(409);
    expect(await act(here, p, 'cancel')).toBe('no-op');
    expect((await c.order(p)).history.map((h) => h.to)).toEqual(['pending', 'ready_to_ship', 'cancelled']);
  });

  it('a shop that got a webhook after its order was remembered: the next action sends the event', async () => {
    const o = await c.intake(105, 1);
    expect(await act(here, o, 'ready_to_ship')).toBe('changed');
    await daemon.services.shops.update(c.shopPk, { webhook_url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks` });
    try {
      expect(await act(here, o, 'ship', { shipping: { carrier: 'DHL', tracking_code: 'W1' } })).toBe('changed');
      const deadline = Date.now() + 15_000;
      while (received.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
      expect(received.map((b) => JSON.parse(b) as Record<string, unknown>)).toMatchObject([
        { event: 'product_feed:order:created', type: 'order.status_changed', order_pk: o, action: 'ship', status: 'shipped', previous_status: 'ready_to_ship' },
      ]);
    } finally {
      await daemon.services.shops.update(c.shopPk, { webhook_url: null });
    }
  });
});

describe('concurrent actions on many orders', () => {
  it('share their writes, and each order gets exactly its own action', async () => {
    const orders = Array.from({ length: 60 }, (_, i) => 200 + i);
    for (const o of orders) await c.intake(o, 2);
    const replies = await Promise.all(orders.map((o, i) => act(here, o, i % 3 === 0 ? 'cancel' : 'ship', i % 3 === 0 ? {} : { items: [1], shipping: { tracking_code: `M${o}` } })));
    expect(replies).toEqual(Array(60).fill('changed'));
    for (const [i, o] of orders.entries()) {
      const order = await c.order(o);
      if (i % 3 === 0) {
        expect(order.status).toBe('cancelled');
        expect(order.shipments).toEqual([]);
      } else {
        expect(order.items.map((x) => [x.status, x.shipment?.tracking_code ?? null])).toEqual([['shipped', `M${o}`], ['pending', null]]);
        expect(order.history.slice(1).map((h) => [h.action, h.item_pks])).toEqual([['ship', [1]]]);
      }
    }
  });
});
