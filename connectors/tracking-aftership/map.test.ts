// AfterShip mapping over its documented tags and the subtags that change their meaning, and
// over fixtures shaped like AfterShip's documented tracking object and webhook.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { aftershipRequest, aftershipSignature, slugOf, verifyAftership } from './client.ts';
import { AFTERSHIP_TAGS, mapAftershipTag, mapAftershipTracking, trackingOfResponse, type AftershipTracking } from './map.ts';

const fixture = (name: string): unknown => JSON.parse(fs.readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8'));

describe('AfterShip tags and subtags', () => {
  it.each([
    ['Pending', 'Pending_001', 'pre_transit'],
    ['InfoReceived', 'InfoReceived_001', 'pre_transit'],
    ['InTransit', 'InTransit_002', 'in_transit'],
    ['OutForDelivery', 'OutForDelivery_003', 'out_for_delivery'],
    ['AttemptFail', 'AttemptFail_002', 'failed_attempt'],
    ['Delivered', 'Delivered_002', 'delivered'],
    ['AvailableForPickup', 'AvailableForPickup_001', 'available_for_pickup'],
    ['Exception', 'Exception_007', 'exception'],
    ['Exception', 'Exception_010', 'returned_to_sender'],
    ['Exception', 'Exception_011', 'returned_to_sender'],
    ['Expired', 'Expired_001', 'unknown'],
  ])('%s / %s -> %s', (tag, subtag, expected) => {
    expect(mapAftershipTag(tag, subtag).status).toBe(expected);
  });

  it('a lost parcel (Exception_013) is a final failure; other exceptions are not', () => {
    expect(mapAftershipTag('Exception', 'Exception_013')).toEqual({ status: 'exception', final: true });
    expect(mapAftershipTag('Exception', 'Exception_004')).toEqual({ status: 'exception', final: false });
  });

  it('every documented tag is mapped; an unknown one is unknown; a subtag alone gives its tag', () => {
    expect(Object.keys(AFTERSHIP_TAGS)).toEqual([
      'Pending',
      'InfoReceived',
      'InTransit',
      'OutForDelivery',
      'AttemptFail',
      'Delivered',
      'AvailableForPickup',
      'Exception',
      'Expired',
    ]);
    expect(mapAftershipTag('Teleported', undefined).status).toBe('unknown');
    expect(mapAftershipTag(undefined, 'Delivered_003').status).toBe('delivered');
  });
});

describe('AfterShip tracking objects', () => {
  it('the GET answer: current tag and each checkpoint with its time zone', () => {
    const r = mapAftershipTracking(trackingOfResponse(fixture('tracking.json'))!);
    expect(r).toMatchObject({ status: 'delivered', carrierStatus: 'Delivered_001', finalFailure: false });
    expect(r.events.map((e) => [e.status, e.carrierCode, e.occurredAt.toISOString()])).toEqual([
      ['pre_transit', 'InfoReceived_001', '2026-11-18T10:01:00.000Z'],
      ['in_transit', 'InTransit_001', '2026-11-19T08:45:00.000Z'],
      ['out_for_delivery', 'OutForDelivery_001', '2026-11-20T12:20:00.000Z'],
      ['delivered', 'Delivered_001', '2026-11-20T14:02:00.000Z'],
    ]);
    expect(r.events[3]).toMatchObject({ carrierText: 'DELIVERED', location: 'New York, NY, USA' });
  });

  it('the webhook msg: returned to sender', () => {
    const body = fixture('webhook-returned.json') as { msg: AftershipTracking };
    expect(mapAftershipTracking(body.msg)).toMatchObject({ status: 'returned_to_sender', carrierStatus: 'Exception_011' });
  });

  it('a GET answer by id (data is the tracking) is read too; an envelope without tracking is not', () => {
    expect(trackingOfResponse({ meta: { code: 200 }, data: { tag: 'InTransit', checkpoints: [] } })).toEqual({
      tag: 'InTransit',
      checkpoints: [],
    });
    expect(trackingOfResponse({ meta: { code: 4004, message: 'Tracking does not exist.' }, data: {} })).toBeNull();
  });
});

describe('AfterShip requests and signatures', () => {
  it('GET /trackings/{slug}/{tracking_number} with as-api-key; slugs by carrier name', () => {
    expect(aftershipRequest('https://api.aftership.com/tracking/2024-01', 'k', 'dhl-germany', '123 4').url).toBe(
      'https://api.aftership.com/tracking/2024-01/trackings/dhl-germany/123%204',
    );
    expect(aftershipRequest('https://x', 'k', 'ups', '1').headers['as-api-key']).toBe('k');
    expect(slugOf('DHL Paket', { 'dhl paket': 'dhl-germany' })).toBe('dhl-germany');
    expect(slugOf('UPS', {})).toBe('ups');
  });

  it("a tracking number of dots never changes the path (it would call the account's list)", () => {
    expect(() => aftershipRequest('https://x', 'k', 'ups', '..')).toThrow(/cannot be put in the carrier's URL/);
    expect(() => aftershipRequest('https://x', 'k', '.', '1')).toThrow(/courier slug/);
    expect(aftershipRequest('https://x', 'k', 'ups', '../a').url).toBe('https://x/trackings/ups/..%2Fa');
  });

  it('aftership-hmac-sha256 is the base64 HMAC-SHA256 of the raw body', () => {
    const body = Buffer.from('{"event":"tracking_update"}');
    const sig = aftershipSignature('s3cret', body);
    expect(sig).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    expect(verifyAftership('s3cret', body, sig)).toBe(true);
    expect(verifyAftership('other', body, sig)).toBe(false);
    expect(verifyAftership('s3cret', Buffer.from('{"event":"x"}'), sig)).toBe(false);
    expect(verifyAftership('s3cret', body, undefined)).toBe(false);
  });
});
