// The eight actions as a client sees them: items omitted vs named, partial shipments and the
// derived order status, shipping data, re-ship, repeats, Idempotency-Key, and the error bodies.
import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.ts';
import { expectProblem, items, orderClient } from './helpers.ts';

const daemon = await useTestDaemon();
const app = daemon.app!;
const c = await orderClient(daemon);
let nextOrder = 1;
const newOrder = (n: number) => c.intake(nextOrder++, n);

describe('items omitted or named', () => {
  it('omitted: every item that is not cancelled', async () => {
    const o = await newOrder(3);
    expect((await c.act(o, 'cancel', items(2))).statusCode).toBe(204);
    const res = await c.act(o, 'ready_to_ship');
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect(await c.statuses(o)).toEqual({ 1: 'ready_to_ship', 2: 'cancelled', 3: 'ready_to_ship' });
    expect((await c.order(o)).status).toBe('partial');
  });

  it('omitted with no body at all, or with {}: the same', async () => {
    const o = await newOrder(2);
    const res = await app.inject({ method: 'POST', url: `${c.base}${o}/packed_by_marketplace/`, headers: c.auth });
    expect(res.statusCode).toBe(204);
    expect((await c.act(o, 'delivered', {})).statusCode).toBe(204);
    expect(await c.statuses(o)).toEqual({ 1: 'delivered', 2: 'delivered' });
  });

  it('cancel without items cancels every item, and again is a no-op', async () => {
    const o = await newOrder(2);
    expect((await c.act(o, 'cancel')).statusCode).toBe(204);
    expect((await c.act(o, 'cancel')).statusCode).toBe(204);
    const order = await c.order(o);
    expect(order.status).toBe('cancelled');
    expect(order.history.map((h) => [h.action, h.item_pks, h.from, h.to])).toEqual([
      ['created', [1, 2], null, 'pending'],
      ['cancel', [1, 2], 'pending', 'cancelled'],
    ]);
  });

  it('an action with no item left to apply to is refused', async () => {
    const o = await newOrder(2);
    await c.act(o, 'cancel');
    const problem = expectProblem(await c.act(o, 'ship'), 409, 'invalid_transition');
    expect(problem.items).toEqual([
      { item_pk: 1, status: 'cancelled' },
      { item_pk: 2, status: 'cancelled' },
    ]);
  });

  it('one history row per status left, with the items that left it', async () => {
    const o = await newOrder(3);
    await c.act(o, 'ready_to_ship', items(2));
    expect((await c.act(o, 'cancel', items(3, 2))).statusCode).toBe(204);
    const order = await c.order(o);
    expect(order.history.slice(-2).map((h) => [h.action, h.item_pks, h.from, h.to])).toEqual([
      ['cancel', [3], 'pending', 'cancelled'],
      ['cancel', [2], 'ready_to_ship', 'cancelled'],
    ]);
  });
});

describe('ship', () => {
  it('partial shipments, each item with its shipment, and the derived order status', async () => {
    const o = await newOrder(3);
    const first = { ...items(1), carrier: 'DHL', tracking_code: 'JD0001', delivery_time: 3, comments: 'fragile' };
    expect((await c.act(o, 'ship', first)).statusCode).toBe(204);
    let order = await c.order(o);
    expect(order.status).toBe('partial');
    expect(order.shipments).toEqual([
      {
        id: expect.any(Number),
        item_pks: [1],
        carrier: 'DHL',
        tracking_code: 'JD0001',
        delivery_time: 3,
        comments: 'fragile',
        shipped_at: expect.any(String),
        updated_at: expect.any(String),
        events: [],
      },
    ]);
    expect(order.items[0]!.shipment).toMatchObject({ id: order.shipments[0]!.id, carrier: 'DHL', tracking_code: 'JD0001' });
    expect(order.items[1]!.shipment).toBeNull();
    expect(order.history.at(-1)).toMatchObject({
      action: 'ship',
      item_pks: [1],
      from: 'pending',
      to: 'shipped',
      shipment_id: order.shipments[0]!.id,
    });

    expect((await c.act(o, 'ship', { ...items(2, 3), carrier: 'UPS', tracking_code: '1Z9' })).statusCode).toBe(204);
    order = await c.order(o);
    expect(order.status).toBe('shipped');
    expect(order.shipments.map((s) => [s.item_pks, s.carrier, s.tracking_code, s.delivery_time])).toEqual([
      [[1], 'DHL', 'JD0001', 3],
      [[2, 3], 'UPS', '1Z9', null],
    ]);
    await c.act(o, 'delivered', items(1));
    expect((await c.order(o)).status).toBe('partial');
    await c.act(o, 'delivered');
    expect((await c.order(o)).status).toBe('delivered');
  });

  it('ship on shipped items updates their shipping data; the same data again is a no-op', async () => {
    const o = await newOrder(2);
    await c.act(o, 'ship', { carrier: 'DHL', tracking_code: 'OLD', comments: 'first' });
    const before = await c.order(o);
    expect((await c.act(o, 'ship', { tracking_code: 'NEW', delivery_time: 5 })).statusCode).toBe(204);
    const after = await c.order(o);
    expect(after.shipments).toHaveLength(1);
    expect(after.shipments[0]).toMatchObject({
      id: before.shipments[0]!.id,
      item_pks: [1, 2],
      carrier: 'DHL',
      tracking_code: 'NEW',
      delivery_time: 5,
      comments: 'first',
    });
    expect(after.items.map((i) => i.shipment?.tracking_code)).toEqual(['NEW', 'NEW']);
    expect(after.history).toHaveLength(before.history.length + 1);
    expect(after.history.at(-1)).toMatchObject({ action: 'ship', item_pks: [1, 2], from: 'shipped', to: 'shipped' });

    expect((await c.act(o, 'ship', { tracking_code: 'NEW' })).statusCode).toBe(204);
    expect((await c.act(o, 'ship')).statusCode).toBe(204);
    expect(await c.order(o)).toEqual(after);
  });

  it('re-ship after not_delivered is a new shipment; the failed one stays on record', async () => {
    const o = await newOrder(1);
    await c.act(o, 'ship', { carrier: 'DHL', tracking_code: 'T1' });
    await c.act(o, 'not_delivered');
    expect((await c.act(o, 'ship', { carrier: 'GLS', tracking_code: 'T2' })).statusCode).toBe(204);
    const order = await c.order(o);
    expect(order.shipments.map((s) => [s.item_pks, s.carrier, s.tracking_code])).toEqual([
      [[1], 'DHL', 'T1'],
      [[1], 'GLS', 'T2'],
    ]);
    expect(order.items[0]).toMatchObject({ status: 'shipped', shipment: { id: order.shipments[1]!.id, tracking_code: 'T2' } });
    expect(order.history.slice(1).map((h) => [h.action, h.from, h.to])).toEqual([
      ['ship', 'pending', 'shipped'],
      ['not_delivered', 'shipped', 'not_delivered'],
      ['ship', 'not_delivered', 'shipped'],
    ]);
    await c.act(o, 'delivered');
    expect((await c.order(o)).status).toBe('delivered');
  });

  it('400 for shipping fields out of bounds, all listed', async () => {
    const o = await newOrder(1);
    const problem = expectProblem(
      await c.act(o, 'ship', { carrier: '', tracking_code: 'x'.repeat(101), delivery_time: -1, comments: 'y'.repeat(1001) }),
      400,
      'validation_failed',
    );
    expect((problem.errors as { pointer: string }[]).map((e) => e.pointer).sort()).toEqual([
      '/carrier',
      '/comments',
      '/delivery_time',
      '/tracking_code',
    ]);
    expectProblem(await c.act(o, 'ship', { delivery_time: '3' }), 400, 'validation_failed');
    expect((await c.order(o)).shipments).toEqual([]);
  });
});

describe('refusals', () => {
  it('409 names every item that cannot move, with its status, and changes nothing', async () => {
    const o = await newOrder(3);
    await c.act(o, 'ship', items(1));
    await c.act(o, 'cancel', items(3));
    const before = await c.order(o);
    const problem = expectProblem(await c.act(o, 'ready_to_ship', items(1, 2, 3)), 409, 'invalid_transition');
    expect(problem).toMatchObject({
      title: 'Conflict',
      action: 'ready_to_ship',
      items: [
        { item_pk: 1, status: 'shipped' },
        { item_pk: 3, status: 'cancelled' },
      ],
    });
    expect(problem.detail).toBe(
      'Cannot apply ready_to_ship: item 1 is shipped, item 3 is cancelled; ready_to_ship moves items from pending, ready_to_ship.',
    );
    expect(await c.order(o)).toEqual(before);
  });

  it('400 for an item_pk not in the order or named twice, by pointer', async () => {
    const o = await newOrder(2);
    const problem = expectProblem(await c.act(o, 'cancel', items(1, 9, 1)), 400, 'validation_failed');
    expect(problem.errors).toEqual([
      { pointer: '/items/1/item_pk', code: 'unknown_item', message: 'item 9 is not an item of this order' },
      { pointer: '/items/2/item_pk', code: 'duplicate_item', message: 'item 1 is named more than once' },
    ]);
    expect(await c.statuses(o)).toEqual({ 1: 'pending', 2: 'pending' });
  });

  it('400 for wrong types, with pointers', async () => {
    const o = await newOrder(1);
    const problem = expectProblem(await c.act(o, 'delivered', { items: [{ item_pk: 'one' }, {}] }), 400, 'validation_failed');
    expect((problem.errors as { pointer: string }[]).map((e) => e.pointer)).toEqual(['/items/0/item_pk', '/items/1/item_pk']);
    expectProblem(await c.act(o, 'delivered', { items: [] }), 400, 'validation_failed');
    expectProblem(await c.act(o, 'delivered', { items: 1 }), 400, 'validation_failed');
    expectProblem(await app.inject({ method: 'POST', url: `${c.base}abc/cancel/`, headers: c.auth }), 400, 'validation_failed');
  });

  it("404 for an unknown order, another marketplace's or another shop's, and an unknown action", async () => {
    const o = await newOrder(1);
    const res = await c.act(424242, 'cancel');
    expectProblem(res, 404, 'not_found');
    expect(res.headers.allow).toBe('POST, OPTIONS');
    const mp2 = (await daemon.services.marketplaces.create({ name: 'Other', pk: 9001 })).pk;
    expectProblem(
      await app.inject({ method: 'POST', url: `/shops/${c.shopPk}/marketplace/${mp2}/orders/${o}/cancel/`, headers: c.auth }),
      404,
      'not_found',
    );
    const other = await orderClient(daemon);
    expectProblem(await app.inject({ method: 'POST', url: `${c.base}${o}/cancel/`, headers: other.auth }), 404, 'not_found');
    expectProblem(await app.inject({ method: 'POST', url: `${other.base}${o}/cancel/`, headers: other.auth }), 404, 'not_found');
    expectProblem(await c.act(o, 'lose'), 404, 'not_found');
    expect(await c.statuses(o)).toEqual({ 1: 'pending' });
  });
});

describe('the action paths', () => {
  it('every reply carries Allow: POST, OPTIONS; OPTIONS answers; other methods 405', async () => {
    const o = await newOrder(1);
    for (const action of [
      'ship',
      'cancel',
      'delivered',
      'not_delivered',
      'packed_by_marketplace',
      'pending',
      'ready_to_ship',
      'returned',
    ]) {
      const url = `${c.base}${o}/${action}/`;
      const opt = await app.inject({ method: 'OPTIONS', url, headers: c.auth });
      expect([opt.statusCode, opt.headers.allow]).toEqual([204, 'POST, OPTIONS']);
      for (const method of ['GET', 'PUT', 'DELETE', 'PATCH'] as const) {
        const res = await app.inject({ method, url, headers: c.auth });
        expectProblem(res, 405, 'method_not_allowed');
        expect(res.headers.allow).toBe('POST, OPTIONS');
      }
      const post = await app.inject({ method: 'POST', url, headers: c.auth });
      expect([204, 409]).toContain(post.statusCode);
      expect(post.headers.allow).toBe('POST, OPTIONS');
    }
    const unauth = await app.inject({ method: 'POST', url: `${c.base}${o}/ship/` });
    expectProblem(unauth, 401, 'unauthorized');
    expect(unauth.headers.allow).toBe('POST, OPTIONS');
  });

  it("the OpenAPI document lists the eight actions (and no_delivered) with their bodies, and the order's records", async () => {
    const doc = (await app.inject('/openapi.json')).json() as {
      paths: Record<string, { post?: { requestBody?: unknown; responses: Record<string, unknown> } }>;
    };
    const ship = doc.paths['/shops/{shop}/marketplace/{mp}/orders/{order}/ship/']!.post!;
    expect(JSON.stringify(ship.requestBody)).toContain('tracking_code');
    expect(Object.keys(ship.responses)).toContain('204');
    const prefix = '/shops/{shop}/marketplace/{mp}/orders/{order}/';
    const actions = Object.keys(doc.paths)
      .filter((p) => p.startsWith(prefix) && p !== prefix)
      .map((p) => p.slice(prefix.length))
      .sort();
    expect(actions).toEqual([
      'cancel/',
      'delivered/',
      'label/',
      'module-integrations/',
      'module-integrations/{id}/',
      'no_delivered/',
      'not_delivered/',
      'packed_by_marketplace/',
      'pending/',
      'ready_to_ship/',
      'returned/',
      'ship/',
    ]);
    expect(JSON.stringify(doc.paths[`${prefix}cancel/`]!.post!.requestBody)).toContain('restock_item');
  });
});

describe('repeats', () => {
  it('the same action again is a 204 no-op without a new history row', async () => {
    const o = await newOrder(2);
    await c.act(o, 'ship', { carrier: 'DHL', tracking_code: 'R1' });
    await c.act(o, 'delivered');
    const before = await c.order(o);
    for (let i = 0; i < 3; i++) expect((await c.act(o, 'delivered')).statusCode).toBe(204);
    expect((await c.act(o, 'delivered', items(2))).statusCode).toBe(204);
    expect(await c.order(o)).toEqual(before);
  });

  it('Idempotency-Key: a replay answers the first reply and does no new work; another body: 422', async () => {
    const o = await newOrder(2);
    const key = { 'idempotency-key': `ship-${o}` };
    const first = await c.act(o, 'ship', { carrier: 'DHL', tracking_code: 'K1' }, key);
    expect(first.statusCode).toBe(204);
    await c.act(o, 'not_delivered');
    const replay = await c.act(o, 'ship', { carrier: 'DHL', tracking_code: 'K1' }, key);
    expect(replay.statusCode).toBe(204);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.headers.allow).toBe('POST, OPTIONS');
    expect(await c.statuses(o)).toEqual({ 1: 'not_delivered', 2: 'not_delivered' });
    expect((await c.order(o)).shipments).toHaveLength(1);
    expectProblem(await c.act(o, 'ship', { carrier: 'UPS' }, key), 422, 'idempotency_key_reused');
  });
});
