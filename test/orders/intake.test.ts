// Intake (POST .../orders/), reading one order and the list, by API and by the service.
import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.ts';
import { pageOf } from '../catalog/catalog-helpers.ts';
import { expectProblem, NO_ADDRESS, orderClient, type OrderJson } from './helpers.ts';

const daemon = await useTestDaemon();
const app = daemon.app!;
const c = await orderClient(daemon);

const body = {
  order_pk: 2000003841425110,
  reference: 'R-1',
  customer: { first_name: 'Ada', email: 'ada@example.com', nickname: 'ignored' },
  shipping_address: { city: 'Lisbon', address: 'Rua 1', lines: ['ignored'] },
  shipping_cost: 4.9,
  items: [
    { item_pk: 11, sku: 'A1', quantity: 2, price: 10.5 },
    { item_pk: 12, sku: 'B2', quantity: 1, price: 3 },
  ],
};

describe('POST .../orders/', () => {
  it('creates the order: 201, Location, the stored order with pending items and a history row', async () => {
    const res = await app.inject({ method: 'POST', url: c.base, headers: c.auth, payload: body });
    expect(res.statusCode).toBe(201);
    expect(res.headers.location).toBe(`http://localhost:80${c.base}2000003841425110/`);
    expect(res.headers.allow).toBe('GET, POST, OPTIONS');
    const order = res.json() as OrderJson;
    expect(order).toMatchObject({
      order_pk: 2000003841425110,
      shop_pk: c.shopPk,
      marketplace_pk: c.mp,
      reference: 'R-1',
      status: 'pending',
      customer: { first_name: 'Ada', last_name: null, email: 'ada@example.com' },
      shipping_address: { ...NO_ADDRESS, city: 'Lisbon', address: 'Rua 1' },
      billing_address: null,
      shipping_cost: 4.9,
      shipments: [],
      items: [
        { item_pk: 11, sku: 'A1', quantity: 2, price: 10.5, status: 'pending', shipment: null },
        { item_pk: 12, sku: 'B2', quantity: 1, price: 3, status: 'pending', shipment: null },
      ],
    });
    expect(order.history).toEqual([
      {
        at: expect.any(String),
        action: 'created',
        item_pks: [11, 12],
        from: null,
        to: 'pending',
        source: `key:${c.keyPrefix}`,
        shipment_id: null,
        details: null,
      },
    ]);
    const read = await app.inject({ url: `${c.base}2000003841425110/`, headers: c.auth });
    expect(read.statusCode).toBe(200);
    expect(read.headers.allow).toBe('GET, OPTIONS');
    expect(read.json()).toEqual(order);
  });

  it('the same order_pk again: 200 with the stored order, nothing changed', async () => {
    const before = await c.order(body.order_pk);
    const res = await app.inject({
      method: 'POST',
      url: c.base,
      headers: c.auth,
      payload: { ...body, reference: 'CHANGED', items: [{ item_pk: 99, sku: 'Z', quantity: 1, price: 1 }] },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers.location).toBe(`http://localhost:80${c.base}2000003841425110/`);
    expect(res.json()).toEqual(before);
    expect(await c.order(body.order_pk)).toEqual(before);
  });

  it('400 lists every invalid field by pointer', async () => {
    const res = await app.inject({
      method: 'POST',
      url: c.base,
      headers: c.auth,
      payload: { order_pk: 'x', items: [{ item_pk: 1, sku: '', quantity: 0, price: '1' }, { sku: 'B' }] },
    });
    const problem = expectProblem(res, 400, 'validation_failed');
    const pointers = (problem.errors as { pointer: string }[]).map((e) => e.pointer).sort();
    expect(pointers).toEqual([
      '/items/0/price',
      '/items/0/quantity',
      '/items/0/sku',
      '/items/1/item_pk',
      '/items/1/price',
      '/items/1/quantity',
      '/order_pk',
    ]);
  });

  it('400 for more than 1,000 items: that is the one error, its invalid items are not listed', async () => {
    const items = Array.from({ length: 1_001 }, (_, i) => ({ item_pk: i + 1, sku: '', quantity: 0, price: -1 }));
    const problem = expectProblem(
      await app.inject({ method: 'POST', url: c.base, headers: c.auth, payload: { order_pk: 556, items } }),
      400,
      'validation_failed',
    );
    expect(problem.errors).toEqual([{ pointer: '/items', code: 'too_many', message: 'must NOT have more than 1000 items (has 1001)' }]);
    expectProblem(await app.inject({ url: `${c.base}556/`, headers: c.auth }), 404, 'not_found');
  });

  it('400 for an item_pk listed twice; nothing stored', async () => {
    const res = await app.inject({
      method: 'POST',
      url: c.base,
      headers: c.auth,
      payload: {
        order_pk: 555,
        items: [
          { item_pk: 1, sku: 'A', quantity: 1, price: 1 },
          { item_pk: 1, sku: 'B', quantity: 1, price: 1 },
        ],
      },
    });
    const problem = expectProblem(res, 400, 'validation_failed');
    expect(problem.errors).toEqual([{ pointer: '/items/1/item_pk', code: 'duplicate_item', message: expect.stringContaining('1') }]);
    expectProblem(await app.inject({ url: `${c.base}555/`, headers: c.auth }), 404, 'not_found');
  });

  it('404 for an unknown marketplace or another shop', async () => {
    expectProblem(
      await app.inject({ method: 'POST', url: `/shops/${c.shopPk}/marketplace/9999/orders/`, headers: c.auth, payload: body }),
      404,
      'not_found',
    );
    const other = await daemon.shopWithKey({ name: 'Other' });
    expectProblem(
      await app.inject({ method: 'POST', url: `/shops/${other.shopPk}/marketplace/${c.mp}/orders/`, headers: c.auth, payload: body }),
      404,
      'not_found',
    );
  });

  it('401 without a key', async () => {
    const res = await app.inject({ method: 'POST', url: c.base, payload: body });
    expectProblem(res, 401, 'unauthorized');
    expect(res.headers['www-authenticate']).toBe('Token');
  });

  it('connectors take orders in through the service, recorded with their name', async () => {
    const first = await daemon.services.orders.intake(
      c.shopPk,
      c.mp,
      { order_pk: 777, items: [{ item_pk: 1, sku: 'A', quantity: 1, price: 2 }] },
      'connector:erp-main',
    );
    expect(first.created).toBe(true);
    expect(first.order.history[0]).toMatchObject({ action: 'created', source: 'connector:erp-main' });
    const again = await daemon.services.orders.intake(
      c.shopPk,
      c.mp,
      { order_pk: 777, items: [{ item_pk: 2, sku: 'B', quantity: 1, price: 2 }] },
      'connector:erp-main',
    );
    expect(again).toEqual({ created: false, order: first.order });
    await expect(daemon.services.orders.intake(c.shopPk, c.mp, { order_pk: 778, items: [] }, 'connector:erp-main')).rejects.toMatchObject({
      status: 400,
      errors: [{ pointer: '/items' }],
    });
  });
});

describe('GET .../orders/{order}/', () => {
  it('404 for an unknown order, or one of another marketplace or shop', async () => {
    expectProblem(await app.inject({ url: `${c.base}123456/`, headers: c.auth }), 404, 'not_found');
    const mp2 = (await daemon.services.marketplaces.create({ name: 'Second', pk: 4242 })).pk;
    expectProblem(
      await app.inject({ url: `/shops/${c.shopPk}/marketplace/${mp2}/orders/${body.order_pk}/`, headers: c.auth }),
      404,
      'not_found',
    );
    const other = await orderClient(daemon);
    expectProblem(await app.inject({ url: `${c.base}${body.order_pk}/`, headers: other.auth }), 404, 'not_found');
    expectProblem(await app.inject({ url: `${other.base}${body.order_pk}/`, headers: other.auth }), 404, 'not_found');
  });

  it('OPTIONS and 405 carry the Allow header', async () => {
    const opt = await app.inject({ method: 'OPTIONS', url: `${c.base}${body.order_pk}/`, headers: c.auth });
    expect(opt.statusCode).toBe(204);
    expect(opt.headers.allow).toBe('GET, OPTIONS');
    const del = await app.inject({ method: 'DELETE', url: `${c.base}${body.order_pk}/`, headers: c.auth });
    expectProblem(del, 405, 'method_not_allowed');
    expect(del.headers.allow).toBe('GET, OPTIONS');
    const put = await app.inject({ method: 'PUT', url: c.base, headers: c.auth, payload: {} });
    expectProblem(put, 405, 'method_not_allowed');
    expect(put.headers.allow).toBe('GET, POST, OPTIONS');
  });
});

describe('GET .../orders/', () => {
  it('lists with a status filter and pagination', async () => {
    const l = await orderClient(daemon);
    for (const pk of [1, 2, 3, 4, 5]) await l.intake(pk, 2);
    expect((await l.act(2, 'cancel')).statusCode).toBe(204);
    expect((await l.act(3, 'ship', { items: [{ item_pk: 1 }] })).statusCode).toBe(204);

    const all = await app.inject({ url: `${l.base}?page_size=2`, headers: l.auth });
    expect(all.statusCode).toBe(200);
    expect(all.headers.allow).toBe('GET, POST, OPTIONS');
    const page1 = pageOf<OrderJson>(all);
    expect(page1.total).toBe(5);
    expect(page1.items.map((o) => o.order_pk)).toEqual([1, 2]);
    expect(page1.links.prev).toBeUndefined();
    expect(page1.links.next).toBe(`http://localhost:80${l.base}?page_size=2&page=2`);
    expect(page1.items[0]!.items).toHaveLength(2);
    expect(page1.items[0]!.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
    const page3 = pageOf<OrderJson>(await app.inject({ url: `${l.base}?page=3&page_size=2`, headers: l.auth }));
    expect(page3.items.map((o) => o.order_pk)).toEqual([5]);
    expect(page3.links.next).toBeUndefined();
    expect(page3.links.prev).toBe(`http://localhost:80${l.base}?page=2&page_size=2`);
    // Every marketplace of the shop at once: GET /shops/{shop}/orders/.
    const shopWide = pageOf<OrderJson>(await app.inject({ url: `/shops/${l.shopPk}/orders?status=pending`, headers: l.auth }));
    expect(shopWide.items.map((o) => o.order_pk)).toEqual([1, 4, 5]);
    expect(shopWide.total).toBe(3);

    const statusOf = async (status: string) =>
      pageOf<OrderJson>(await app.inject({ url: `${l.base}?status=${status}`, headers: l.auth })).items.map((o) => o.order_pk);
    expect(await statusOf('pending')).toEqual([1, 4, 5]);
    expect(await statusOf('cancelled')).toEqual([2]);
    expect(await statusOf('partial')).toEqual([3]);
    expectProblem(await app.inject({ url: `${l.base}?status=lost`, headers: l.auth }), 400, 'validation_failed');
    expectProblem(await app.inject({ url: `${l.base}?page_size=1001`, headers: l.auth }), 400, 'validation_failed');
    expectProblem(await app.inject({ url: `/shops/${l.shopPk}/marketplace/9999/orders/`, headers: l.auth }), 404, 'not_found');
  });
});

describe('search (admin)', () => {
  it('finds orders across shops by order_pk, reference or tracking code, with their history', async () => {
    const a = await orderClient(daemon);
    const b = await orderClient(daemon);
    await a.intake(31337, 1);
    await b.intake(31337, 2);
    await b.act(31337, 'ship', { items: [{ item_pk: 2 }], carrier: 'DHL', tracking_code: 'FIND-ME' });
    const byPk = await daemon.services.orders.search({ orderPk: 31337, limit: 10 });
    expect(byPk.map((o) => o.shop_pk)).toEqual([b.shopPk, a.shopPk]);
    expect(byPk[0]!.history.map((h) => h.action)).toEqual(['created', 'ship']);
    const byTracking = await daemon.services.orders.search({ trackingCode: 'FIND-ME', limit: 10 });
    expect(byTracking.map((o) => [o.shop_pk, o.order_pk])).toEqual([[b.shopPk, 31337]]);
    expect(await daemon.services.orders.search({ reference: 'R-31337', orderPk: 31337, limit: 1 })).toHaveLength(1);
    expect(await daemon.services.orders.search({ reference: 'nope', limit: 10 })).toEqual([]);
  });
});
