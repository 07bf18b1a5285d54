// tracking-aftership: polling AfterShip's API (nock, its documented envelope), and its webhooks
// at POST /webhooks/carriers/{name}/ signed by aftership-hmac-sha256: applied, a duplicate
// applied once, a forged one refused with 401, a return after delivery -> returned.
import { createHmac } from 'node:crypto';
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.ts';
import { fixture, runConnector, shopClient, onlyNockedNetwork } from './helpers.ts';
import { connectorsFile } from '../helpers/connectors-file.ts';

process.env.WB_TEST_AS_KEY = 'as-test-key';
process.env.WB_TEST_AS_SECRET = 'as-webhook-secret';
const AS = 'https://api.aftership.test/tracking/2024-01';
const daemon = await useTestDaemon({
  env: {
    WAYBILL_CONNECTORS: connectorsFile([
      {
        name: 'aftership',
        type: 'tracking-aftership',
        options: {
          base_url: AS,
          carriers: ['UPS', 'DHL Paket'],
          slugs: { 'DHL Paket': 'dhl-germany' },
          api_key_env: 'WB_TEST_AS_KEY',
          webhook_secret_env: 'WB_TEST_AS_SECRET',
          min_interval_seconds: 0,
          retry_min_ms: 10,
        },
      },
      {
        name: 'aftership-nohook',
        type: 'tracking-aftership',
        options: { base_url: AS, carriers: ['NOPE'], api_key_env: 'WB_TEST_AS_KEY' },
      },
    ]),
  },
});
const shop = await shopClient(daemon);

onlyNockedNetwork();

const sign = (body: string, secret = 'as-webhook-secret') => createHmac('sha256', secret).update(body).digest('base64');
const webhook = (body: string, signature: string | null, name = 'aftership') =>
  daemon.app!.inject({
    method: 'POST',
    url: `/webhooks/carriers/${name}/`,
    payload: body,
    headers: { 'content-type': 'application/json', ...(signature === null ? {} : { 'aftership-hmac-sha256': signature }) },
  });

/** The documented webhook with this event_id, tracking number and tag/subtag. */
function event(eventId: string, trackingNumber: string, tag: string, subtag: string, at: string): string {
  const base = fixture('tracking-aftership', 'webhook-returned.json') as { msg: Record<string, unknown> };
  const checkpoint = {
    ...(base.msg.checkpoints as Record<string, unknown>[])[0],
    tag,
    subtag,
    checkpoint_time: at,
    message: `${tag} event`,
  };
  return JSON.stringify({
    ...base,
    event_id: eventId,
    msg: { ...base.msg, tracking_number: trackingNumber, tag, subtag, checkpoints: [checkpoint] },
  });
}

describe('polling', () => {
  it('GET /trackings/{slug}/{tracking_number} with as-api-key: the order is delivered by connector:aftership', async () => {
    const { orderPk } = await shop.shipped('ups', '1Z9999W99999999999');
    const scope = nock(AS)
      .get('/trackings/ups/1Z9999W99999999999')
      .matchHeader('as-api-key', 'as-test-key')
      .reply(200, fixture('tracking-aftership', 'tracking.json'));
    const run = await runConnector(daemon, 'aftership');
    expect(scope.isDone()).toBe(true);
    expect(run).toMatchObject({ outcome: 'succeeded', counts: { checked: 1, events_new: 4, action_delivered: 1 } });
    const order = await shop.order(orderPk);
    expect(order.status).toBe('delivered');
    expect(order.history.at(-1)).toMatchObject({ action: 'delivered', source: 'connector:aftership' });
  });

  it('a carrier name maps to its AfterShip slug', async () => {
    const { shipmentId } = await shop.shipped('DHL Paket', 'JJD000390007');
    const body = fixture('tracking-aftership', 'tracking.json') as { data: { tracking: Record<string, unknown> } };
    const transit = { ...body, data: { tracking: { ...body.data.tracking, tag: 'InTransit', subtag: 'InTransit_001', checkpoints: [] } } };
    const scope = nock(AS).get('/trackings/dhl-germany/JJD000390007').reply(200, transit);
    await runConnector(daemon, 'aftership');
    expect(scope.isDone()).toBe(true);
    expect(await daemon.services.tracking.get(shipmentId)).toMatchObject({ status: 'in_transit', carrier_status: 'InTransit_001' });
  });
});

describe('webhooks', () => {
  it('a signed update is applied: 200, the order delivered, the delivery recorded as a run', async () => {
    const { orderPk, shipmentId } = await shop.shipped('UPS', 'HOOK-1');
    const body = event('e1000000-0000-4000-8000-000000000001', 'HOOK-1', 'Delivered', 'Delivered_001', '2026-11-21T10:00:00+01:00');
    const res = await webhook(body, sign(body));
    expect(res.statusCode).toBe(200);
    expect(res.headers.allow).toBe('POST, OPTIONS');
    expect(res.json()).toEqual({ received: true, shipments: 1, status: 'delivered', actions: ['delivered'] });
    const order = await shop.order(orderPk);
    expect(order.status).toBe('delivered');
    expect(order.history.at(-1)).toMatchObject({ action: 'delivered', source: 'connector:aftership' });
    expect(await daemon.services.tracking.get(shipmentId)).toMatchObject({
      status: 'delivered',
      events: [{ status: 'delivered', carrier_code: 'Delivered_001', occurred_at: '2026-11-21T09:00:00.000Z' }],
    });
    // The order's own read carries each shipment's tracking events too.
    expect(order.shipments).toMatchObject([
      {
        id: shipmentId,
        tracking_code: 'HOOK-1',
        events: [
          { status: 'delivered', carrier_code: 'Delivered_001', occurred_at: '2026-11-21T09:00:00.000Z', source: expect.any(String) },
        ],
      },
    ]);
    const [run] = await daemon.services.connectors.runs('aftership');
    expect(run).toMatchObject({
      trigger: 'webhook',
      outcome: 'succeeded',
      counts: { webhook_updates: 1, events_new: 1, action_delivered: 1 },
    });
  });

  it('a duplicate (same event_id) gets the first reply and is applied once', async () => {
    const { orderPk, shipmentId } = await shop.shipped('UPS', 'HOOK-2');
    const body = event('e1000000-0000-4000-8000-000000000002', 'HOOK-2', 'Delivered', 'Delivered_001', '2026-11-21T11:00:00Z');
    const first = await webhook(body, sign(body));
    const again = await webhook(body, sign(body));
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(first.json());
    expect(again.headers['idempotent-replayed']).toBe('true');
    const order = await shop.order(orderPk);
    expect(order.history.filter((h) => h.action === 'delivered')).toHaveLength(1);
    expect((await daemon.services.tracking.get(shipmentId))!.events).toHaveLength(1);
  });

  it('a forged or unsigned update is refused with 401 and changes nothing', async () => {
    const { orderPk } = await shop.shipped('UPS', 'HOOK-3');
    const body = event('e1000000-0000-4000-8000-000000000003', 'HOOK-3', 'Delivered', 'Delivered_001', '2026-11-21T12:00:00Z');
    const forged = await webhook(body, sign(body, 'not-the-secret'));
    expect(forged.statusCode).toBe(401);
    expect(forged.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(forged.json()).toMatchObject({ status: 401, code: 'invalid_signature' });
    const tampered = await webhook(body.replace('HOOK-3', 'HOOK-4'), sign(body));
    expect(tampered.statusCode).toBe(401);
    expect((await webhook(body, null)).statusCode).toBe(401);
    expect((await shop.order(orderPk)).status).toBe('shipped');
    // The genuine one is still applied afterwards (a refused delivery is not remembered).
    expect((await webhook(body, sign(body))).statusCode).toBe(200);
    expect((await shop.order(orderPk)).status).toBe('delivered');
  });

  it('returned to sender after delivery: returned; before delivery: not_delivered', async () => {
    const after = await shop.shipped('UPS', 'HOOK-5');
    const d = event('e1000000-0000-4000-8000-000000000005', 'HOOK-5', 'Delivered', 'Delivered_001', '2026-11-21T12:00:00Z');
    expect((await webhook(d, sign(d))).statusCode).toBe(200);
    const r = event('e1000000-0000-4000-8000-000000000006', 'HOOK-5', 'Exception', 'Exception_011', '2026-11-24T12:00:00Z');
    expect((await webhook(r, sign(r))).json()).toMatchObject({ status: 'returned_to_sender', actions: ['returned'] });
    expect((await shop.order(after.orderPk)).status).toBe('returned');

    const before = await shop.shipped('UPS', 'HOOK-7');
    const r2 = event('e1000000-0000-4000-8000-000000000007', 'HOOK-7', 'Exception', 'Exception_011', '2026-11-24T12:00:00Z');
    expect((await webhook(r2, sign(r2))).json()).toMatchObject({ actions: ['not_delivered'] });
    expect((await shop.order(before.orderPk)).status).toBe('not_delivered');
  });

  it('404 for a connector without webhooks or an unknown one; 400 for a body that is not an update', async () => {
    const body = event('e1000000-0000-4000-8000-000000000009', 'X', 'Delivered', 'Delivered_001', '2026-11-21T12:00:00Z');
    expect((await webhook(body, sign(body), 'aftership-nohook')).statusCode).toBe(404);
    expect((await webhook(body, sign(body), 'nobody')).statusCode).toBe(404);
    const bad = JSON.stringify({ event: 'tracking_update' });
    expect((await webhook(bad, sign(bad))).statusCode).toBe(400);
    expect((await daemon.app!.inject({ method: 'GET', url: '/webhooks/carriers/aftership/' })).statusCode).toBe(405);
    // `waybill connectors list` names the webhook address.
    expect((await daemon.services.connectors.get('aftership')).receivers).toEqual(['/webhooks/carriers/aftership/']);
    const openapi = (await daemon.app!.inject({ url: '/openapi.json' })).json() as { paths: Record<string, Record<string, unknown>> };
    expect(Object.keys(openapi.paths['/webhooks/carriers/{name}/'] ?? {})).toContain('post');
  });

  it('an event of another type, without a tracking number, answers 200 and does nothing; once per event_id', async () => {
    for (const other of [{ event: 'edd_revise' }, { event: 'tracking_created', msg: {} }, { msg: null }]) {
      const body = JSON.stringify({ event_id: `e-other-${JSON.stringify(other)}`, ...other });
      const res = await webhook(body, sign(body));
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ received: true, shipments: 0 });
      const again = await webhook(body, sign(body));
      expect(again.statusCode).toBe(200);
      expect(again.headers['idempotent-replayed']).toBe('true');
    }
    // A tracking_update still needs its tracking number; any event needs its event_id.
    for (const bad of [{ event_id: 'e-upd-no-number', event: 'tracking_update', msg: {} }, { event: 'edd_revise' }]) {
      const body = JSON.stringify(bad);
      expect((await webhook(body, sign(body))).statusCode).toBe(400);
    }
  });

  it('a signed but malformed update answers 400 or is applied without events, never 500 (found by the API fuzzer)', async () => {
    for (const bad of [
      'null',
      '[]',
      JSON.stringify({ event_id: 'e-bad-1', event: 'tracking_update', msg: null }),
      JSON.stringify({ event_id: 'e-bad-2', event: 'tracking_update', msg: 'x' }),
    ]) {
      expect((await webhook(bad, sign(bad))).statusCode).toBe(400);
    }
    for (const [i, checkpoints] of [[null], 'xxx', 7, [null, 'x', 3]].entries()) {
      const body = JSON.stringify({
        event_id: `e-bad-cp-${i}`,
        event: 'tracking_update',
        msg: { tracking_number: 'NOBODY-1', slug: 'ups', tag: 'InTransit', checkpoints },
      });
      const res = await webhook(body, sign(body));
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ received: true, shipments: 0 });
    }
  });
});
