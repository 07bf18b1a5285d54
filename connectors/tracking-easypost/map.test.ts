// EasyPost mapping over its documented tracker statuses, and over fixtures shaped like
// EasyPost's documented Tracker object and tracker.updated Event.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { carrierOf, easypostRequest, easypostSignature, verifyEasypost } from './client.ts';
import { EASYPOST_STATUSES, mapEasypostStatus, mapEasypostTracker, trackerOfList, type EasypostTracker } from './map.ts';

const fixture = (name: string): unknown => JSON.parse(fs.readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8'));

describe('EasyPost statuses', () => {
  it.each([
    ['pre_transit', null, 'pre_transit', false],
    ['in_transit', 'arrived_at_facility', 'in_transit', false],
    ['out_for_delivery', 'out_for_delivery', 'out_for_delivery', false],
    ['available_for_pickup', null, 'available_for_pickup', false],
    ['delivered', 'arrived_at_destination', 'delivered', false],
    ['return_to_sender', 'return', 'returned_to_sender', false],
    ['failure', 'delivery_exception', 'exception', false],
    ['failure', 'lost', 'exception', true],
    ['cancelled', null, 'unknown', false],
    ['something_new', null, 'unknown', false],
  ])('%s / %s -> %s', (status, detail, expected, final) => {
    expect(mapEasypostStatus(status, detail)).toEqual({ status: expected, final });
  });

  it('every documented status is mapped', () => {
    expect(Object.keys(EASYPOST_STATUSES).sort()).toEqual([
      'available_for_pickup',
      'cancelled',
      'delivered',
      'error',
      'failure',
      'in_transit',
      'out_for_delivery',
      'pre_transit',
      'return_to_sender',
      'unknown',
    ]);
  });
});

describe('EasyPost trackers', () => {
  it('a delivered tracker: current status and each tracking detail with its place', () => {
    const r = mapEasypostTracker(trackerOfList({ trackers: [fixture('tracker.json')] })!);
    expect(r).toMatchObject({ status: 'delivered', carrierStatus: 'arrived_at_destination', finalFailure: false });
    expect(r.events.map((e) => [e.status, e.carrierCode, e.occurredAt.toISOString()])).toEqual([
      ['pre_transit', 'status_update', '2026-11-18T09:00:12.000Z'],
      ['in_transit', 'arrived_at_facility', '2026-11-19T14:32:00.000Z'],
      ['out_for_delivery', 'out_for_delivery', '2026-11-20T15:05:00.000Z'],
      ['delivered', 'arrived_at_destination', '2026-11-20T21:14:03.000Z'],
    ]);
    expect(r.events[3]).toMatchObject({ carrierText: 'Delivered, In/At Mailbox', location: expect.stringContaining('HENDERSON') });
    expect(r.events[0]!.location).toBeNull();
  });

  it('the tracker.updated event: returned to sender', () => {
    const event = fixture('event-returned.json') as { result: EasypostTracker };
    expect(mapEasypostTracker(event.result)).toMatchObject({ status: 'returned_to_sender', carrierStatus: 'return' });
  });

  it('a list without trackers, or a garbled one, gives no tracker', () => {
    expect(trackerOfList({ trackers: [], has_more: false })).toBeNull();
    expect(trackerOfList({ trackers: [null] })).toBeNull();
    expect(trackerOfList(null)).toBeNull();
  });
});

describe('EasyPost requests and signatures', () => {
  it('GET /v2/trackers?tracking_code= with the key as Basic user; carrier names by option', () => {
    const req = easypostRequest('https://api.easypost.com/', 'EZTK123', '9400 1108', 'USPS');
    expect(req.url).toBe('https://api.easypost.com/v2/trackers?tracking_code=9400+1108&carrier=USPS');
    expect(req.headers.authorization).toBe(`Basic ${Buffer.from('EZTK123:').toString('base64')}`);
    expect(easypostRequest('https://x', 'k', '..', null).url).toBe('https://x/v2/trackers?tracking_code=..');
    expect(carrierOf('ups ground', { 'UPS Ground': 'UPS' })).toBe('UPS');
    expect(carrierOf('Other', {})).toBeNull();
  });

  it('X-Hmac-Signature is hmac-sha256-hex= and the hex HMAC-SHA256 of the raw body (secret in NFKD)', () => {
    const body = Buffer.from('{"description":"tracker.updated"}');
    const sig = easypostSignature('s3cret', body);
    expect(sig).toMatch(/^hmac-sha256-hex=[0-9a-f]{64}$/);
    expect(verifyEasypost('s3cret', body, sig)).toBe(true);
    expect(verifyEasypost('other', body, sig)).toBe(false);
    expect(verifyEasypost('s3cret', Buffer.from('{}'), sig)).toBe(false);
    expect(verifyEasypost('s3cret', body, undefined)).toBe(false);
    // "ﬁ" (one ligature code point) is "fi" once normalized.
    expect(easypostSignature('\uFB01x', body)).toBe(easypostSignature('fix', body));
  });
});
