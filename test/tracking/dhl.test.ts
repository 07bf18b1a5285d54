// tracking-dhl end to end: an order shipped through the API with carrier + tracking_code, a
// run of the connector against DHL's API (nock, answers shaped like DHL's documentation), and
// the order as the shop reads it afterwards. Plus deduplication, selection and refused moves.
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.ts';
import { fixture, runConnector, shopClient, onlyNockedNetwork } from './helpers.ts';
import { connectorsFile } from '../helpers/connectors-file.ts';

process.env.WB_TEST_DHL_KEY = 'dhl-test-key';
const DHL = 'https://api-eu.dhl.test';
const dhl = (name: string, carriers: string[], options: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
  name,
  type: 'tracking-dhl',
  ...extra,
  options: { base_url: DHL, carriers, api_key_env: 'WB_TEST_DHL_KEY', min_interval_seconds: 0, retry_min_ms: 10, ...options },
});
const daemon = await useTestDaemon({
  env: {
    WAYBILL_CONNECTORS: connectorsFile([
      dhl('dhl', ['DHL']),
      dhl('dhl-follow', ['DHL-FOLLOW'], { follow_delivered_days: 3 }),
      dhl('dhl-shop', ['DHL-SHOP'], {}, { shop_pk: 1 }),
      dhl('dhl-slow', ['DHL-SLOW'], { max_run_seconds: 1, concurrency: 1 }),
      dhl('dhl-rate', ['DHL-RATE'], { requests_per_second: 10, concurrency: 10 }),
      dhl('dhl-interval', ['DHL-INTERVAL'], { min_interval_seconds: 3600 }),
    ]),
  },
});
const shop = await shopClient(daemon);
const tracking = daemon.services.tracking;

onlyNockedNetwork();

/** DHL answers for one tracking number (the documented fixture with that number). */
const answer = (trackingNumber: string, name: string, times = 1) =>
  nock(DHL)
    .get('/track/shipments')
    .query({ trackingNumber })
    .matchHeader('DHL-API-Key', 'dhl-test-key')
    .times(times)
    .reply(200, fixture('tracking-dhl', name));

describe('a shipped order becomes delivered', () => {
  it('intake, ship with carrier and tracking_code, run the connector: the order is delivered, by connector:dhl', async () => {
    const { orderPk, shipmentId } = await shop.shipped('DHL', '00340434161094042557', 2);
    const scope = answer('00340434161094042557', 'delivered.json');
    const run = await runConnector(daemon, 'dhl');
    expect(scope.isDone()).toBe(true);
    expect(run).toMatchObject({ outcome: 'succeeded', counts: { checked: 1, events_new: 4, action_delivered: 1 } });
    const order = await shop.order(orderPk);
    expect(order.status).toBe('delivered');
    expect(order.items.map((i) => i.status)).toEqual(['delivered', 'delivered']);
    expect(order.history.at(-1)).toMatchObject({
      action: 'delivered',
      item_pks: [1, 2],
      from: 'shipped',
      to: 'delivered',
      source: 'connector:dhl',
    });
    const t = await tracking.get(shipmentId);
    expect(t).toMatchObject({ status: 'delivered', carrier_status: 'delivered', final: true, checks: 1, last_error: null });
    expect(t!.events.map((e) => e.status)).toEqual(['pre_transit', 'in_transit', 'out_for_delivery', 'delivered']);
    expect(t!.events[3]).toMatchObject({
      carrier_code: 'delivered',
      location: 'Berlin, 10117, DE',
      source: 'connector:dhl',
      warning: null,
    });
    // Final: the next run does not ask DHL again (nock would refuse the call).
    expect((await runConnector(daemon, 'dhl')).counts).toEqual({});
  });

  it('a re-poll adds nothing: the same events are stored once, and an in-transit parcel moves nothing', async () => {
    const { orderPk, shipmentId } = await shop.shipped('dhl', 'TRANSIT-1');
    answer('TRANSIT-1', 'transit.json', 2);
    expect((await runConnector(daemon, 'dhl')).counts).toEqual({ checked: 1, events_new: 2 });
    expect((await runConnector(daemon, 'dhl')).counts).toEqual({ checked: 1 });
    const t = await tracking.get(shipmentId);
    expect(t).toMatchObject({ status: 'in_transit', final: false, checks: 2 });
    expect(t!.events).toHaveLength(2);
    const order = await shop.order(orderPk);
    expect(order.status).toBe('shipped');
    expect(order.history.map((h) => h.action)).toEqual(['created', 'ship']);
  });

  it('returned to sender before delivery: not_delivered', async () => {
    const { orderPk } = await shop.shipped('DHL', 'RETURN-1');
    answer('RETURN-1', 'returned.json');
    expect((await runConnector(daemon, 'dhl')).counts).toMatchObject({ checked: 1, action_not_delivered: 1 });
    const order = await shop.order(orderPk);
    expect(order.status).toBe('not_delivered');
    expect(order.history.at(-1)).toMatchObject({ action: 'not_delivered', from: 'shipped', to: 'not_delivered', source: 'connector:dhl' });
  });
});

describe('returns after delivery', () => {
  it('a delivery and a return seen in one look: delivered, then returned', async () => {
    const { orderPk } = await shop.shipped('DHL', 'RETURN-2');
    const body = fixture('tracking-dhl', 'delivered.json') as { shipments: Record<string, unknown>[] };
    const back = {
      timestamp: '2026-11-25T09:00:00Z',
      location: { address: { countryCode: 'DE', postalCode: '53113', addressLocality: 'Bonn' } },
      statusCode: 'failure',
      status: 'RETURNED TO SENDER',
      description: 'The shipment has been returned to the sender',
    };
    const s0 = body.shipments[0]!;
    nock(DHL)
      .get('/track/shipments')
      .query({ trackingNumber: 'RETURN-2' })
      .reply(200, { ...body, shipments: [{ ...s0, status: back, events: [back, ...(s0.events as unknown[])] }] });
    expect((await runConnector(daemon, 'dhl')).counts).toMatchObject({ action_returned: 1, events_new: 5 });
    const order = await shop.order(orderPk);
    expect(order.status).toBe('returned');
    expect(order.history.slice(-2)).toMatchObject([
      { action: 'delivered', from: 'shipped', to: 'delivered', source: 'connector:dhl' },
      { action: 'returned', from: 'delivered', to: 'returned', source: 'connector:dhl' },
    ]);
  });
});

describe('refused moves', () => {
  it('a move the state table refuses is a tracking event with a warning, tried once, never again', async () => {
    const { orderPk, shipmentId } = await shop.shipped('DHL-FOLLOW', 'REFUSED-1');
    // The shop reports the delivery and then a return itself: items are `returned`.
    expect(await shop.act(orderPk, 'delivered')).toBe(204);
    expect(await shop.act(orderPk, 'returned')).toBe(204);
    // DHL now says delivered: delivered from returned is not in the state table.
    answer('REFUSED-1', 'delivered.json', 2);
    const first = await runConnector(daemon, 'dhl-follow');
    // The run refused an action: partial.
    expect(first).toMatchObject({ outcome: 'partial', counts: { checked: 1, events_new: 4, actions_refused: 1 } });
    // Followed after delivery (follow_delivered_days): polled again, but the action is not retried.
    const second = await runConnector(daemon, 'dhl-follow');
    expect(second).toMatchObject({ outcome: 'succeeded', counts: { checked: 1 } });
    const t = await tracking.get(shipmentId);
    const warnings = t!.events.filter((e) => e.warning !== null);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ status: 'delivered', source: 'connector:dhl-follow' });
    expect(warnings[0]!.warning).toMatch(/^order action delivered refused: /);
    const order = await shop.order(orderPk);
    expect(order.status).toBe('returned');
    expect(order.history.filter((h) => h.source === 'connector:dhl-follow')).toEqual([]);
  });
});

describe('selection', () => {
  it('only its carriers (case-insensitive), only its shop, never a superseded shipment', async () => {
    const other = await shopClient(daemon);
    expect(shop.shopPk).toBe(1);
    const mine = await shop.shipped('dhl-SHOP', 'SEL-1');
    const theirs = await other.shipped('DHL-SHOP', 'SEL-2');
    const notMine = await shop.shipped('UPS', 'SEL-3');
    // Not delivered, shipped again with a new parcel: only the new shipment is tracked.
    const old = await shop.shipped('DHL-SHOP', 'SEL-4');
    expect(await shop.act(old.orderPk, 'not_delivered')).toBe(204);
    expect(await shop.act(old.orderPk, 'ship', { carrier: 'DHL-Shop', tracking_code: 'SEL-5' })).toBe(204);
    const renewed = (await shop.order(old.orderPk)).shipments.find((s) => s.tracking_code === 'SEL-5')!;
    const scope = answer('SEL-1', 'transit.json');
    const scope5 = answer('SEL-5', 'transit.json');
    expect((await runConnector(daemon, 'dhl-shop')).counts).toEqual({ checked: 2, events_new: 4 });
    expect(scope.isDone() && scope5.isDone()).toBe(true);
    expect(await tracking.get(mine.shipmentId)).not.toBeNull();
    expect(await tracking.get(renewed.id)).not.toBeNull();
    expect(await tracking.get(old.shipmentId)).toBeNull();
    expect(await tracking.get(theirs.shipmentId)).toBeNull();
    expect(await tracking.get(notMine.shipmentId)).toBeNull();
  });

  it('a run is bounded in time: the rest waits, and the next run starts with the shipments never checked', async () => {
    const codes = ['SLOW-1', 'SLOW-2', 'SLOW-3', 'SLOW-4'];
    const ids: number[] = [];
    for (const code of codes) ids.push((await shop.shipped('DHL-SLOW', code)).shipmentId);
    for (const code of codes)
      nock(DHL).get('/track/shipments').query({ trackingNumber: code }).delay(400).reply(200, fixture('tracking-dhl', 'transit.json'));
    const first = await runConnector(daemon, 'dhl-slow');
    const checkedFirst = first.counts.checked ?? 0;
    expect(checkedFirst).toBeGreaterThanOrEqual(1);
    expect(checkedFirst).toBeLessThan(4);
    expect(first.counts.deferred).toBe(4 - checkedFirst);
    const states = await Promise.all(ids.map((id) => tracking.get(id)));
    const unchecked = ids.filter((_, i) => states[i] === null);
    expect(unchecked).toHaveLength(4 - checkedFirst);
    await runConnector(daemon, 'dhl-slow');
    // Never-checked shipments first: each of them has been checked now.
    for (const id of unchecked) expect(await tracking.get(id)).not.toBeNull();
  });

  it('min_interval_seconds: a shipment checked within the interval waits; a new one is checked', async () => {
    await shop.shipped('DHL-INTERVAL', 'INT-1');
    answer('INT-1', 'transit.json');
    expect((await runConnector(daemon, 'dhl-interval')).counts).toEqual({ checked: 1, events_new: 2 });
    await shop.shipped('DHL-INTERVAL', 'INT-2');
    const scope = answer('INT-2', 'transit.json');
    expect((await runConnector(daemon, 'dhl-interval')).counts).toEqual({ checked: 1, events_new: 2 });
    expect(scope.isDone()).toBe(true);
    expect((await runConnector(daemon, 'dhl-interval')).counts).toEqual({});
  });

  it('requests per second: 10 shipments at 10/s take about a second, never more than 10 starts in a second', async () => {
    const starts: number[] = [];
    for (let i = 0; i < 10; i++) await shop.shipped('DHL-RATE', `RATE-${i}`);
    nock(DHL)
      .get('/track/shipments')
      .query(true)
      .times(10)
      .reply(200, () => {
        starts.push(Date.now());
        return fixture('tracking-dhl', 'transit.json');
      });
    const run = await runConnector(daemon, 'dhl-rate');
    expect(run.counts.checked).toBe(10);
    expect(starts.at(-1)! - starts[0]!).toBeGreaterThanOrEqual(850);
    for (const s of starts) expect(starts.filter((t) => t >= s && t < s + 1000).length).toBeLessThanOrEqual(10);
  });
});
