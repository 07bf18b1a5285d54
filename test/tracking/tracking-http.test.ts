// tracking-http: a carrier added by configuration alone (URL template, auth header, JSON
// paths, status map), from shipped order to delivered order; and a bad configuration named
// at start-up.
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { parseConnectorsConfig } from '../../src/connectors/host/config-file.ts';
import { connectorTypes } from '../../connectors/index.ts';
import { useTestDaemon } from '../helpers/daemon.ts';
import { fixture, runConnector, shopClient, onlyNockedNetwork } from './helpers.ts';
import { connectorsFile } from '../helpers/connectors-file.ts';

process.env.WB_TEST_COLIS_KEY = 'colis-key';
const API = 'https://api.colis-regional.test';
const colis = {
  name: 'colis',
  type: 'tracking-http',
  options: {
    base_url: API,
    carriers: ['Colis Regional'],
    url_template: '{base_url}/v2/parcels/{tracking_code}?carrier={carrier}',
    auth_header: 'Authorization',
    auth_prefix: 'Bearer ',
    api_key_env: 'WB_TEST_COLIS_KEY',
    status_path: 'parcel.state.code',
    events_path: 'parcel.history',
    event_fields: { time: 'at', code: 'code', text: 'label', location: 'place' },
    status_map: {
      ACC: 'pre_transit',
      TRN: 'in_transit',
      OFD: 'out_for_delivery',
      DLV: 'delivered',
      RTS: 'returned_to_sender',
      LST: 'exception',
    },
    final_failure_codes: ['LST'],
    min_interval_seconds: 0,
  },
};
const daemon = await useTestDaemon({ env: { WAYBILL_CONNECTORS: connectorsFile([colis]) } });
const shop = await shopClient(daemon);

onlyNockedNetwork();

describe('a carrier by configuration alone', () => {
  it('shipped order -> delivered, with the carrier events stored', async () => {
    const { orderPk, shipmentId } = await shop.shipped('colis regional', 'PX-1000-42', 3);
    const scope = nock(API)
      .get('/v2/parcels/PX-1000-42')
      .query({ carrier: 'colis regional' })
      .matchHeader('authorization', 'Bearer colis-key')
      .reply(200, fixture('tracking-http', 'parcel.json'));
    const run = await runConnector(daemon, 'colis');
    expect(scope.isDone()).toBe(true);
    expect(run).toMatchObject({ outcome: 'succeeded', counts: { checked: 1, events_new: 4, action_delivered: 1 } });
    const order = await shop.order(orderPk);
    expect(order.status).toBe('delivered');
    expect(order.history.at(-1)).toMatchObject({ action: 'delivered', item_pks: [1, 2, 3], source: 'connector:colis' });
    const t = await daemon.services.tracking.get(shipmentId);
    expect(t!.events.map((e) => [e.status, e.carrier_code, e.carrier_text, e.location])).toEqual([
      ['pre_transit', 'ACC', 'Accepted at depot', 'Lyon'],
      ['in_transit', 'TRN', 'In transit', 'Paris hub'],
      ['out_for_delivery', 'OFD', 'Out for delivery', 'Paris 11e'],
      ['delivered', 'DLV', 'Delivered to recipient', 'Paris 11e'],
    ]);
  });

  it('a lost parcel (a final failure code) before delivery: not_delivered', async () => {
    const { orderPk } = await shop.shipped('Colis Regional', 'PX-LOST');
    nock(API)
      .get('/v2/parcels/PX-LOST')
      .query(true)
      .reply(200, { parcel: { state: { code: 'LST' }, history: [] } });
    expect((await runConnector(daemon, 'colis')).counts).toMatchObject({ action_not_delivered: 1 });
    expect((await shop.order(orderPk)).status).toBe('not_delivered');
  });
});

describe('configuration', () => {
  it('names each bad option at start-up', () => {
    const bad = {
      ...colis,
      options: { ...colis.options, status_map: { DLV: 'arrived' }, url_template: '{base_url}/parcels', carriers: [] },
    };
    expect(() => parseConnectorsConfig({ connectors: [bad] }, connectorTypes, 'test', process.env)).toThrow(
      /options\.status_map\.DLV[\s\S]*options\.url_template|options\.url_template[\s\S]*options\.status_map/,
    );
  });

  it('the example config file validates', async () => {
    const fs = await import('node:fs');
    const raw = JSON.parse(fs.readFileSync(new URL('../../config/connectors.carriers.example.json', import.meta.url), 'utf8')) as {
      connectors: { type: string; options?: Record<string, unknown> }[];
    };
    const tracking = raw.connectors.filter((c) => c.type.startsWith('tracking-'));
    expect(tracking.map((c) => c.type).sort()).toEqual(['tracking-aftership', 'tracking-dhl', 'tracking-http']);
    const env = Object.fromEntries(
      tracking.flatMap((c) =>
        Object.entries(c.options ?? {})
          .filter(([k]) => k.endsWith('_env'))
          .map(([, v]) => [v as string, 'x']),
      ),
    );
    expect(parseConnectorsConfig({ connectors: tracking }, connectorTypes, 'example', env)).toHaveLength(3);
  });
});
