// tracking-http: JSON paths, the status map and the URL template, over a fixture of a
// made-up regional carrier (the adapter exists for carriers nobody wrote an adapter for).
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CarrierError } from '../sdk/index.ts';
import { fillTemplate, httpBody, httpRequest } from './client.ts';
import { atPath, mapHttpResponse, statusOf, type HttpMapping } from './map.ts';

const parcel = JSON.parse(fs.readFileSync(new URL('./fixtures/parcel.json', import.meta.url), 'utf8')) as unknown;

const mapping: HttpMapping = {
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
};

describe('tracking-http mapping', () => {
  it('reads values at dotted paths with indexes', () => {
    expect(atPath(parcel, 'parcel.state.code')).toBe('DLV');
    expect(atPath(parcel, '$.parcel.history[1].place')).toBe('Paris hub');
    expect(atPath(parcel, 'parcel.history.3.code')).toBe('DLV');
    expect(atPath(parcel, 'parcel.nothing.here')).toBeUndefined();
  });

  it('maps the status and every event through the status map', () => {
    const r = mapHttpResponse(parcel, mapping);
    expect(r).toMatchObject({ status: 'delivered', carrierStatus: 'DLV', finalFailure: false });
    expect(r.events.map((e) => [e.status, e.carrierCode, e.location])).toEqual([
      ['pre_transit', 'ACC', 'Lyon'],
      ['in_transit', 'TRN', 'Paris hub'],
      ['out_for_delivery', 'OFD', 'Paris 11e'],
      ['delivered', 'DLV', 'Paris 11e'],
    ]);
    expect(r.events[3]!.occurredAt.toISOString()).toBe('2026-11-21T10:40:00.000Z');
  });

  it('codes not in the map are unknown; codes match case-insensitively; final failure codes', () => {
    expect(statusOf('xyz', mapping.status_map)).toBe('unknown');
    expect(statusOf('dlv', mapping.status_map)).toBe('delivered');
    expect(mapHttpResponse({ parcel: { state: { code: 'LST' } } }, mapping)).toMatchObject({
      status: 'exception',
      finalFailure: true,
      events: [],
    });
  });

  it('fills the URL template and the auth header', () => {
    expect(
      fillTemplate('{base_url}/v1/parcels/{tracking_code}?carrier={carrier}', {
        base_url: 'https://api.example/',
        tracking_code: 'A B/1',
        carrier: 'Colis Express',
      }),
    ).toBe('https://api.example/v1/parcels/A%20B%2F1?carrier=Colis%20Express');
    expect(
      httpRequest(
        {
          base_url: 'https://x',
          url_template: '{base_url}/{tracking_code}',
          auth_header: 'Authorization',
          auth_prefix: 'Bearer ',
          headers: { 'x-client': 'waybill' },
        },
        'k',
        '1',
        'c',
      ),
    ).toEqual({ url: 'https://x/1', headers: { Authorization: 'Bearer k', 'x-client': 'waybill' } });
  });

  it('a value is one path segment: dot segments and empty values are refused, never sent', () => {
    const fill = (code: string) =>
      fillTemplate('{base_url}/parcels/{tracking_code}/info', { base_url: 'https://api.example', tracking_code: code, carrier: 'c' });
    expect(fill('a/../b?x#y')).toBe('https://api.example/parcels/a%2F..%2Fb%3Fx%23y/info');
    expect(fill('%2e%2e')).toBe('https://api.example/parcels/%252e%252e/info');
    expect(fill('$&')).toBe('https://api.example/parcels/%24%26/info');
    for (const code of ['', '.', '..']) expect(() => fill(code)).toThrow(/cannot be put in the carrier's URL/);
  });

  it('a 200 without the status at status_path is an error, not a check', () => {
    expect(() => httpBody({ status: 200, body: { other: 1 } }, 'parcel.state.code')).toThrow(
      'HTTP 200 answer has no status at parcel.state.code',
    );
    expect(() => httpBody({ status: 200, body: null }, 'parcel.state.code')).toThrow(CarrierError);
    expect(httpBody({ status: 200, body: parcel }, 'parcel.state.code')).toBe(parcel);
  });
});
