// A shipment's timeline as the order API shows it: a status without events is one event; a
// delivery time outside the checkpoints is the delivered event; events come in time order, and
// one dated before an event it follows is kept with a warning, counted in the run.
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.ts';
import { runConnector, shopClient, onlyNockedNetwork } from './helpers.ts';
import { connectorsFile } from '../helpers/connectors-file.ts';

process.env.WB_TEST_TL_KEY = 'tl-key';
const AS = 'https://api.aftership.test/tracking/2024-01';
const daemon = await useTestDaemon({
  env: {
    WAYBILL_CONNECTORS: connectorsFile([
      {
        name: 'timeline',
        type: 'tracking-aftership',
        options: { base_url: AS, carriers: ['TL'], api_key_env: 'WB_TEST_TL_KEY', min_interval_seconds: 0 },
      },
    ]),
  },
});
const shop = await shopClient(daemon);

onlyNockedNetwork();

interface Shipment {
  events: { occurred_at: string; status: string; carrier_code: string | null; location: string | null; warning: string | null }[];
}
const eventsOf = async (orderPk: number) => ((await shop.order(orderPk)) as unknown as { shipments: Shipment[] }).shipments[0]!.events;
const answer = (tracking: Record<string, unknown>) => ({
  meta: { code: 200 },
  data: { tracking: { tracking_number: 'x', slug: 'tl', ...tracking } },
});
const checkpoint = (at: string, tag: string, extra: Record<string, unknown> = {}) => ({
  checkpoint_time: at,
  tag,
  subtag: `${tag}_001`,
  message: tag,
  ...extra,
});

describe('timelines', () => {
  it('a status without events (Pending) is one event, stored once however often it is polled', async () => {
    const { orderPk } = await shop.shipped('TL', 'TL-PENDING');
    nock(AS)
      .get('/trackings/tl/TL-PENDING')
      .times(2)
      .reply(200, answer({ tag: 'Pending', subtag: 'Pending_001', checkpoints: [] }));
    expect((await runConnector(daemon, 'timeline')).counts).toMatchObject({ checked: 1, events_new: 1 });
    await runConnector(daemon, 'timeline');
    expect(await eventsOf(orderPk)).toEqual([
      expect.objectContaining({ status: 'pre_transit', carrier_code: 'Pending_001', warning: null }),
    ]);
  });

  it('shipment_delivery_date is the delivered event when the checkpoints lack one; places said once', async () => {
    const { orderPk } = await shop.shipped('TL', 'TL-DELIVERED');
    nock(AS)
      .get('/trackings/tl/TL-DELIVERED')
      .reply(
        200,
        answer({
          tag: 'Delivered',
          subtag: 'Delivered_001',
          shipment_delivery_date: '2026-11-20T14:02:00',
          checkpoints: [
            checkpoint('2026-11-19T08:45:00', 'InTransit', { city: 'Henderson', state: 'NV', zip: '89014', country_iso3: 'USA' }),
          ],
        }),
      );
    await runConnector(daemon, 'timeline');
    expect((await eventsOf(orderPk)).map((e) => [e.occurred_at, e.status, e.location])).toEqual([
      ['2026-11-19T08:45:00.000Z', 'in_transit', 'Henderson, NV 89014, USA'],
      ['2026-11-20T14:02:00.000Z', 'delivered', null],
    ]);
    expect((await shop.order(orderPk)).status).toBe('delivered');
  });

  it('events in time order; one dated before an event it follows is kept with a warning, and the run says so', async () => {
    const { orderPk } = await shop.shipped('TL', 'TL-CLOCK');
    nock(AS)
      .get('/trackings/tl/TL-CLOCK')
      .reply(
        200,
        answer({
          tag: 'Delivered',
          subtag: 'Delivered_001',
          // Newest first, as AfterShip may list them; the delivery dated an hour before the transit scan.
          checkpoints: [
            checkpoint('2026-11-20T09:00:00', 'Delivered'),
            checkpoint('2026-11-20T10:00:00', 'InTransit'),
            checkpoint('2026-11-19T08:00:00', 'InfoReceived'),
          ],
        }),
      );
    const run = await runConnector(daemon, 'timeline');
    expect(run.counts).toMatchObject({ checked: 1, events_new: 3, events_out_of_order: 1 });
    const events = await eventsOf(orderPk);
    expect(events.map((e) => [e.occurred_at, e.status])).toEqual([
      ['2026-11-19T08:00:00.000Z', 'pre_transit'],
      ['2026-11-20T09:00:00.000Z', 'delivered'],
      ['2026-11-20T10:00:00.000Z', 'in_transit'],
    ]);
    expect(events[1]!.warning).toMatch(/dated before an event it follows/);
    expect(events.filter((e) => e.warning !== null)).toHaveLength(1);
  });
});
