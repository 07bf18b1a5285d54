// What existing clients read of an order (pk, ff_type, customer, addresses, tags, actions,
// items with carrier and tracking code, progress): taken in, read back alike by the single
// read and the list; no_delivered; cancel's feedback; module integrations.
import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.ts';
import { expectProblem, NO_ADDRESS, orderClient, type OrderJson } from './helpers.ts';

const daemon = await useTestDaemon();
const app = daemon.app!;
const c = await orderClient(daemon);
const post = (payload: unknown) => app.inject({ method: 'POST', url: c.base, headers: c.auth, payload: payload as object });

const shipping = {
  first_name: 'Ada',
  last_name: 'Lovelace',
  address: 'Av. Insurgentes Sur 1602',
  street_name: 'Insurgentes Sur',
  neighborhood: 'Crédito Constructor',
  reference: 'Blue door',
  city: 'Ciudad de México',
  region: 'CDMX',
  postal_code: '03940',
  country: 'MX',
  phone: '+52 55 1234 5678',
  email: 'ada@example.com',
};
const full = {
  pk: 2000003841425110,
  shop_pk: c.shopPk,
  marketplace_pk: c.mp,
  reference: 'R-FULL',
  ff_type: 'seller',
  created_at: '2026-11-20T08:30:00',
  payment_method: 'credit_card',
  paid: true,
  shipping_cost: 99.5,
  customer: { email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace' },
  shipping_address: shipping,
  billing_address: { first_name: 'Ada', last_name: 'Lovelace', city: 'Ciudad de México', country: 'MX' },
  tags: ['priority', 'gift'],
  items: [
    { pk: 31, sku: 'A1', quantity: 2, price: 10.5 },
    { item_pk: 32, pk: 32, sku: 'B2', quantity: 1, price: 3, ff_type: 'marketplace' },
  ],
};
const progress = (...done: string[]) =>
  ['paid', 'ready_to_ship', 'shipped', 'delivered', 'canceled', 'failed', 'refunded'].map((name) => ({
    name,
    status: done.includes(name) ? 'done' : 'pending',
  }));

describe('every field an order carries', () => {
  it('intake takes them all; the reply, the single read and the list element carry them alike', async () => {
    const res = await post(full);
    expect(res.statusCode, res.body).toBe(201);
    const order = res.json() as OrderJson;
    expect(order).toMatchObject({
      pk: full.pk,
      order_pk: full.pk,
      reference: 'R-FULL',
      shop_pk: c.shopPk,
      marketplace_pk: c.mp,
      ff_type: 'seller',
      created_at: '2026-11-20T08:30:00',
      shipping_cost: 99.5,
      payment_method: 'credit_card',
      paid: true,
      customer: full.customer,
      shipping_address: shipping,
      billing_address: { ...NO_ADDRESS, first_name: 'Ada', last_name: 'Lovelace', city: 'Ciudad de México', country: 'MX' },
      tags: ['priority', 'gift'],
      actions: ['set_ready_to_ship'],
      items: [
        {
          pk: 31,
          item_pk: 31,
          sku: 'A1',
          quantity: 2,
          price: 10.5,
          ff_type: 'seller',
          status: 'pending',
          carrier: null,
          tracking_code: null,
        },
        {
          pk: 32,
          item_pk: 32,
          sku: 'B2',
          quantity: 1,
          price: 3,
          ff_type: 'marketplace',
          status: 'pending',
          carrier: null,
          tracking_code: null,
        },
      ],
      progress: progress('paid'),
      module_integrations: [],
    });
    expect(Object.keys(order.shipping_address as object).sort()).toEqual(Object.keys(NO_ADDRESS).sort());
    const read = await c.order(full.pk);
    expect(read).toEqual(order);
    const list = (await app.inject({ url: c.base, headers: c.auth })).json() as { results: OrderJson[] } | OrderJson[];
    const element = (Array.isArray(list) ? list : list.results).find((o) => o.pk === full.pk)!;
    const { shipments: _s, history: _h, module_integrations: _m, ...fields } = read;
    expect(element).toEqual(fields);
  });

  it('defaults: seller, paid, no tags, unknown addresses and customer as nulls', async () => {
    const res = await post({ order_pk: 501, items: [{ item_pk: 1, sku: 'A', quantity: 1, price: 1 }] });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({
      pk: 501,
      ff_type: 'seller',
      paid: true,
      payment_method: null,
      shipping_cost: null,
      reference: null,
      tags: [],
      customer: { email: null, first_name: null, last_name: null },
      shipping_address: null,
      billing_address: null,
      actions: ['set_ready_to_ship'],
      progress: progress('paid'),
      items: [{ pk: 1, item_pk: 1, ff_type: 'seller', carrier: null, tracking_code: null }],
    });
    const unpaid = await post({
      order_pk: 502,
      paid: false,
      ff_type: 'marketplace',
      items: [{ item_pk: 1, sku: 'A', quantity: 1, price: 1 }],
    });
    expect(unpaid.json()).toMatchObject({
      paid: false,
      progress: progress(),
      ff_type: 'marketplace',
      actions: [],
      items: [{ ff_type: 'marketplace' }],
    });
  });

  it('takes created_at with a zone, as documented, and answers it in UTC', async () => {
    const items = [{ item_pk: 1, sku: 'A', quantity: 1, price: 1 }];
    const zoned = await post({ order_pk: 660, created_at: '2026-11-20T09:30:00+01:00', items });
    expect(zoned.statusCode, zoned.body).toBe(201);
    expect(zoned.json()).toMatchObject({ created_at: '2026-11-20T08:30:00' });
    // A connector's order the same way.
    const taken = await daemon.services.orders.intake(
      c.shopPk,
      c.mp,
      { order_pk: 661, created_at: '2026-11-20T08:30:00.250Z', items } as never,
      'connector:erp',
    );
    expect(taken.order).toMatchObject({ created_at: '2026-11-20T08:30:00' });
  });

  it('400 names each field that is wrong, by pointer, with the storable-value rules', async () => {
    const res = await post({
      pk: 600,
      order_pk: 601,
      shop_pk: c.shopPk + 1,
      marketplace_pk: c.mp,
      created_at: '2026-02-30T10:00:00',
      tags: ['ok', ''],
      customer: { email: 'x'.repeat(256) },
      shipping_address: { city: 7 },
      billing_address: 'street',
      paid: 'yes',
      payment_method: 'x'.repeat(101),
      items: [{ item_pk: 1, pk: 2, sku: 'A', quantity: 1, price: 1, ff_type: '' }],
    });
    // Every problem at once: the schema's, and the rules past it (pk and order_pk disagree, the
    // path's shop is another), as a connector's order is told.
    const problem = expectProblem(res, 400, 'validation_failed');
    expect((problem.errors as { pointer: string }[]).map((e) => e.pointer).sort()).toEqual([
      '/billing_address',
      '/created_at',
      '/customer/email',
      '/items/0/ff_type',
      '/items/0/item_pk',
      '/order_pk',
      '/paid',
      '/payment_method',
      '/shipping_address/city',
      '/shop_pk',
      '/tags/1',
    ]);
    // The rules past the schema alone.
    const mismatch = expectProblem(
      await post({ pk: 600, order_pk: 601, shop_pk: c.shopPk + 1, items: [{ item_pk: 1, pk: 2, sku: 'A', quantity: 1, price: 1 }] }),
      400,
      'validation_failed',
    );
    expect((mismatch.errors as { pointer: string; code: string }[]).map((e) => [e.pointer, e.code])).toEqual([
      ['/order_pk', 'mismatch'],
      ['/shop_pk', 'mismatch'],
      ['/items/0/item_pk', 'mismatch'],
    ]);
    expectProblem(await app.inject({ url: `${c.base}601/`, headers: c.auth }), 404, 'not_found');
  });

  it('connectors go through the same rules: pk for order_pk, a real created_at, mismatches by pointer', async () => {
    const taken = await daemon.services.orders.intake(
      c.shopPk,
      c.mp,
      { pk: 650, items: [{ pk: 1, sku: 'A', quantity: 1, price: 1 }], created_at: '2026-01-02T03:04:05' } as never,
      'connector:erp',
    );
    expect(taken.order).toMatchObject({ pk: 650, created_at: '2026-01-02T03:04:05', items: [{ pk: 1, item_pk: 1 }] });
    await expect(
      daemon.services.orders.intake(
        c.shopPk,
        c.mp,
        {
          order_pk: 651,
          created_at: '2026-13-01T00:00:00',
          marketplace_pk: c.mp + 1,
          items: [{ item_pk: 1, sku: 'A', quantity: 1, price: 1 }],
        },
        'connector:erp',
      ),
    ).rejects.toMatchObject({
      status: 400,
      errors: [
        { pointer: '/marketplace_pk', code: 'mismatch' },
        { pointer: '/created_at', code: 'invalid_timestamp' },
      ],
    });
    // Every problem at once, with the API's codes: the schema's, then the rules past it.
    const wrong = {
      order_pk: 652,
      shop_pk: c.shopPk + 1,
      paid: 'yes',
      created_at: '2026-02-30T10:00:00',
      items: [
        { item_pk: 1, sku: 'A', quantity: 0, price: 1 },
        { item_pk: 1, sku: 'B', quantity: 1, price: 1 },
      ],
    };
    const error = await daemon.services.orders.intake(c.shopPk, c.mp, wrong as never, 'connector:erp').catch((e: unknown) => e);
    expect((error as { errors: unknown[] }).errors).toEqual([
      { pointer: '/paid', code: 'invalid_type', message: 'must be boolean' },
      { pointer: '/items/0/quantity', code: 'too_small', message: 'must be >= 1' },
      { pointer: '/shop_pk', code: 'mismatch', message: `must be the path's shop (${c.shopPk})` },
      {
        pointer: '/created_at',
        code: 'invalid_timestamp',
        message: 'must be a timestamp YYYY-MM-DDThh:mm:ss (a real date, years 0001-9999), optionally with a zone (Z, +01:00)',
      },
      { pointer: '/items/1/item_pk', code: 'duplicate_item', message: 'item 1 is listed more than once' },
    ]);
  });

  it('actions follow the items: ready to ship, then ship, then print the label; items and progress carry the shipment', async () => {
    await c.intake(700, 2);
    expect((await c.act(700, 'ready_to_ship')).statusCode).toBe(204);
    expect(await c.order(700)).toMatchObject({ actions: ['set_shipped'], progress: progress('paid', 'ready_to_ship') });
    expect((await c.act(700, 'ship', { carrier: 'DHL', tracking_code: 'JD0001' })).statusCode).toBe(204);
    expect(await c.order(700)).toMatchObject({
      actions: ['print_delivery_label'],
      progress: progress('paid', 'ready_to_ship', 'shipped'),
      items: [
        { carrier: 'DHL', tracking_code: 'JD0001', status: 'shipped' },
        { carrier: 'DHL', tracking_code: 'JD0001', status: 'shipped' },
      ],
    });
    expect((await c.act(700, 'delivered')).statusCode).toBe(204);
    expect(await c.order(700)).toMatchObject({ actions: [], progress: progress('paid', 'ready_to_ship', 'shipped', 'delivered') });
  });
});

describe('no_delivered and cancel feedback', () => {
  it('no_delivered is not_delivered: same move, same Allow header, same history', async () => {
    await c.intake(800, 1);
    await c.act(800, 'ship', { carrier: 'DHL', tracking_code: 'ND1' });
    const res = await c.act(800, 'no_delivered');
    expect(res.statusCode).toBe(204);
    expect(res.headers.allow).toBe('POST, OPTIONS');
    const order = await c.order(800);
    expect(order.items[0]!.status).toBe('not_delivered');
    expect(order.history.at(-1)).toMatchObject({ action: 'not_delivered', from: 'shipped', to: 'not_delivered' });
    expect(order).toMatchObject({ actions: ['set_shipped'], progress: progress('paid', 'ready_to_ship', 'shipped', 'failed') });
    const options = await app.inject({ method: 'OPTIONS', url: `${c.base}800/no_delivered/`, headers: c.auth });
    expect([options.statusCode, options.headers.allow]).toEqual([204, 'POST, OPTIONS']);
    expectProblem(await app.inject({ method: 'GET', url: `${c.base}800/no_delivered/`, headers: c.auth }), 405, 'method_not_allowed');
    // A repeat is the same no-op as not_delivered's; a refusal names not_delivered's rule.
    expect((await c.act(800, 'no_delivered')).statusCode).toBe(204);
    await c.intake(801, 1);
    expect(expectProblem(await c.act(801, 'no_delivered'), 409, 'invalid_transition').detail).toContain(
      'not_delivered moves items from shipped',
    );
  });

  it("cancel takes the clients' feedback and records it in the history rows of the items it cancels", async () => {
    await c.intake(900, 2);
    const feedback = { message: 'Out of stock', reason: 'SELLER_OUT_OF_STOCK', rating: 'neutral', fulfilled: false, restock_item: true };
    expect((await c.act(900, 'cancel', { items: [{ item_pk: 2 }], ...feedback })).statusCode).toBe(204);
    const order = await c.order(900);
    expect(order.history.at(-1)).toMatchObject({ action: 'cancel', item_pks: [2], to: 'cancelled', details: feedback });
    expect(order.progress).toEqual(progress('paid'));
    expect((await c.act(900, 'cancel')).statusCode).toBe(204);
    expect((await c.order(900)).history.at(-1)).toMatchObject({ action: 'cancel', item_pks: [1], details: null });
    expect((await c.order(900)).progress).toEqual(progress('paid', 'canceled'));
    const bad = expectProblem(
      await c.act(900, 'cancel', { rating: 'great', fulfilled: 'no', message: 'x'.repeat(1001) }),
      400,
      'validation_failed',
    );
    expect((bad.errors as { pointer: string }[]).map((e) => e.pointer).sort()).toEqual(['/fulfilled', '/message', '/rating']);
  });
});

describe('module integrations', () => {
  const url = (o: number) => `${c.base}${o}/module-integrations/`;

  it('POST adds, GET lists, PUT replaces the latest of (module_name, type), DELETE removes; each shows in the history', async () => {
    await c.intake(1000, 1);
    const first = await app.inject({
      method: 'POST',
      url: url(1000),
      headers: c.auth,
      payload: { module_name: 'magento2', status: 'error', message: 'SKU A1 unknown', type: 'order' },
    });
    expect(first.statusCode, first.body).toBe(201);
    const record = first.json() as { id: number };
    expect(first.headers.location).toBe(`http://localhost:80${url(1000)}${record.id}/`);
    expect(first.headers.allow).toBe('GET, POST, PUT, OPTIONS');
    expect(record).toMatchObject({ module_name: 'magento2', status: 'error', message: 'SKU A1 unknown', reference: null, type: 'order' });

    const put = await app.inject({
      method: 'PUT',
      url: url(1000),
      headers: c.auth,
      payload: { module_name: 'magento2', type: 'order', status: 'success', reference: '000000123' },
    });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toMatchObject({ id: record.id, status: 'success', reference: '000000123', message: null });
    const other = await app.inject({ method: 'PUT', url: url(1000), headers: c.auth, payload: { module_name: 'erp' } });
    expect(other.statusCode).toBe(201);
    expect(other.json()).toMatchObject({ module_name: 'erp', type: null, status: null });

    const list = await app.inject({ url: url(1000), headers: c.auth });
    expect(list.json()).toEqual([put.json(), other.json()]);
    const order = await c.order(1000);
    expect(order.module_integrations).toEqual(list.json());
    expect(order.history.slice(1).map((h) => [h.action, h.to, (h.details as { change: string }).change])).toEqual([
      ['module_integration', null, 'created'],
      ['module_integration', null, 'updated'],
      ['module_integration', null, 'created'],
    ]);
    // Recording changes no item: the order's status and actions stay.
    expect(order).toMatchObject({ status: 'pending', actions: ['set_ready_to_ship'] });

    const del = await app.inject({ method: 'DELETE', url: `${url(1000)}${record.id}/`, headers: c.auth });
    expect([del.statusCode, del.headers.allow]).toEqual([204, 'DELETE, OPTIONS']);
    expectProblem(await app.inject({ method: 'DELETE', url: `${url(1000)}${record.id}/`, headers: c.auth }), 404, 'not_found');
    expect((await app.inject({ url: url(1000), headers: c.auth })).json()).toEqual([other.json()]);
    expect((await c.order(1000)).history.at(-1)).toMatchObject({
      action: 'module_integration',
      details: { change: 'deleted', id: record.id },
    });
  });

  it("400 without module_name, 404 for an unknown order or another shop's", async () => {
    await c.intake(1001, 1);
    const bad = expectProblem(
      await app.inject({ method: 'POST', url: url(1001), headers: c.auth, payload: { status: 'x'.repeat(51) } }),
      400,
      'validation_failed',
    );
    expect((bad.errors as { pointer: string }[]).map((e) => e.pointer).sort()).toEqual(['/module_name', '/status']);
    expectProblem(await app.inject({ url: url(424242), headers: c.auth }), 404, 'not_found');
    const stranger = await orderClient(daemon);
    expectProblem(await app.inject({ url: url(1001), headers: stranger.auth }), 404, 'not_found');
    expectProblem(
      await app.inject({
        method: 'POST',
        url: `${stranger.base}1001/module-integrations/`,
        headers: stranger.auth,
        payload: { module_name: 'x' },
      }),
      404,
      'not_found',
    );
  });
});
