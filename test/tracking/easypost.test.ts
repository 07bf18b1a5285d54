// tracking-easypost: polling EasyPost's trackers (nock, its documented list answer), and its
// tracker.updated events at POST /webhooks/carriers/{name}/ signed by X-Hmac-Signature:
// applied, a duplicate applied once, a forged one refused with 401.
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.ts';
import { fixture, runConnector, shopClient, onlyNockedNetwork } from './helpers.ts';
import { connectorsFile } from '../helpers/connectors-file.ts';
import { easypostSignature } from '../../connectors/tracking-easypost/client.ts';

process.env.WB_TEST_EP_KEY = 'EZTKtestkey';
process.env.WB_TEST_EP_SECRET = 'ep-webhook-secret';
const EP = 'https://api.easypost.test';
const daemon = await useTestDaemon({
  env: {
    WAYBILL_CONNECTORS: connectorsFile([
      {
        name: 'easypost',
        type: 'tracking-easypost',
        options: {
          base_url: EP,
          carriers: ['USPS', 'UPS Ground'],
          carrier_names: { 'UPS Ground': 'UPS' },
          api_key_env: 'WB_TEST_EP_KEY',
          webhook_secret_env: 'WB_TEST_EP_SECRET',
          min_interval_seconds: 0,
          retry_min_ms: 10,
        },
      },
    ]),
  },
});
const shop = await shopClient(daemon);

onlyNockedNetwork();

const webhook = (body: string, signature: string | null) =>
  daemon.app!.inject({
    method: 'POST',
    url: '/webhooks/carriers/easypost/',
    payload: body,
    headers: { 'content-type': 'application/json', ...(signature === null ? {} : { 'x-hmac-signature': signature }) },
  });

describe('polling', () => {
  it('GET /v2/trackers?tracking_code= with the key as Basic user: the order is delivered by connector:easypost', async () => {
    const { orderPk, shipmentId } = await shop.shipped('usps', '9400110898825022579493');
    const scope = nock(EP)
      .get('/v2/trackers')
      .query({ tracking_code: '9400110898825022579493' })
      .basicAuth({ user: 'EZTKtestkey', pass: '' })
      .reply(200, { trackers: [fixture('tracking-easypost', 'tracker.json')], has_more: false });
    const run = await runConnector(daemon, 'easypost');
    expect(scope.isDone()).toBe(true);
    expect(run).toMatchObject({ outcome: 'succeeded', counts: { checked: 1, events_new: 4, action_delivered: 1 } });
    expect((await shop.order(orderPk)).status).toBe('delivered');
    expect(await daemon.services.tracking.get(shipmentId)).toMatchObject({ status: 'delivered', carrier_status: 'arrived_at_destination' });
  });

  it("no tracker for the code: that shipment's error; the carrier name is sent as EasyPost knows it", async () => {
    const { shipmentId } = await shop.shipped('UPS Ground', '1ZNOTRACKER');
    const scope = nock(EP)
      .get('/v2/trackers')
      .query({ tracking_code: '1ZNOTRACKER', carrier: 'UPS' })
      .reply(200, { trackers: [], has_more: false });
    const run = await runConnector(daemon, 'easypost');
    expect(scope.isDone()).toBe(true);
    expect(run.counts).toMatchObject({ checks_refused: 1 });
    expect((await daemon.services.tracking.get(shipmentId))?.last_error).toMatch(/no tracker/);
  });
});

describe('tracker.updated webhooks', () => {
  it('a signed event is applied once; a forged one is a 401', async () => {
    const { orderPk } = await shop.shipped('UPS Ground', '1Z999AA10123456784');
    const body = JSON.stringify(fixture('tracking-easypost', 'event-returned.json'));
    expect((await webhook(body, easypostSignature('wrong', Buffer.from(body)))).statusCode).toBe(401);
    expect((await webhook(body, null)).statusCode).toBe(401);
    const first = await webhook(body, easypostSignature('ep-webhook-secret', Buffer.from(body)));
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toMatchObject({ received: true, shipments: 1, status: 'returned_to_sender', actions: ['not_delivered'] });
    const again = await webhook(body, easypostSignature('ep-webhook-secret', Buffer.from(body)));
    expect(again.json()).toEqual(first.json());
    const order = await shop.order(orderPk);
    expect(order.status).toBe('not_delivered');
    expect(order.history.filter((h) => h.action === 'not_delivered')).toHaveLength(1);
  });

  it('other events are acknowledged and change nothing', async () => {
    const body = JSON.stringify({ id: 'evt_other', object: 'Event', description: 'batch.updated', result: {} });
    const res = await webhook(body, easypostSignature('ep-webhook-secret', Buffer.from(body)));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ received: true, shipments: 0 });
  });
});
