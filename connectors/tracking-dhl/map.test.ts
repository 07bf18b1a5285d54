// DHL Unified API mapping over its documented statusCodes and event texts, and over fixtures
// shaped like DHL's documented answers.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { dhlRequest } from './client.ts';
import { DHL_STATUS_CODES, mapDhlEvent, mapDhlResponse } from './map.ts';

const fixture = (name: string): unknown => JSON.parse(fs.readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8'));

describe('DHL statusCode mapping', () => {
  it.each([
    ['pre-transit', 'DATA RECEIVED', 'The instruction data for this shipment have been provided by the sender', 'pre_transit', false],
    ['transit', 'PROCESSED', 'The shipment has been processed in the parcel center', 'in_transit', false],
    ['transit', 'OUT FOR DELIVERY', 'The shipment has been loaded onto the delivery vehicle', 'out_for_delivery', false],
    ['transit', 'READY FOR PICKUP', 'The shipment is ready for pick up at the Packstation', 'available_for_pickup', false],
    ['delivered', 'DELIVERED', 'The shipment has been successfully delivered', 'delivered', false],
    ['delivered', 'DELIVERED', 'The shipment has been returned to the sender', 'returned_to_sender', false],
    ['failure', 'DELIVERY ATTEMPT FAILED', 'The recipient was not at home', 'failed_attempt', false],
    ['failure', 'RETURNED TO SENDER', 'The shipment is being returned to the sender', 'returned_to_sender', false],
    ['failure', 'LOST', 'The shipment has been lost', 'exception', true],
    ['failure', 'CUSTOMS', 'The shipment is held by customs', 'exception', false],
    ['unknown', 'UNKNOWN', 'No information', 'unknown', false],
  ])('%s / %s -> %s', (statusCode, status, description, expected, final) => {
    expect(mapDhlEvent({ statusCode, status, description })).toEqual({ status: expected, final });
  });

  it('covers every documented statusCode', () => {
    for (const code of DHL_STATUS_CODES) expect(mapDhlEvent({ statusCode: code }).status).not.toBeUndefined();
    expect(mapDhlEvent({ statusCode: 'something-new' }).status).toBe('unknown');
  });
});

describe('DHL answers', () => {
  it('a delivered parcel: current status and every event, with DHL code, text and place', () => {
    const r = mapDhlResponse(fixture('delivered.json'))!;
    expect(r.status).toBe('delivered');
    expect(r.carrierStatus).toBe('delivered');
    expect(r.finalFailure).toBe(false);
    expect(r.events.map((e) => e.status)).toEqual(['delivered', 'out_for_delivery', 'in_transit', 'pre_transit']);
    expect(r.events[0]).toEqual({
      occurredAt: new Date('2026-11-20T14:03:00Z'),
      status: 'delivered',
      carrierCode: 'delivered',
      carrierText: 'DELIVERED: The shipment has been successfully delivered',
      location: 'Berlin, 10117, DE',
    });
  });

  it('a return to sender after a failed attempt', () => {
    const r = mapDhlResponse(fixture('returned.json'))!;
    expect(r.status).toBe('returned_to_sender');
    expect(r.events.map((e) => e.status)).toEqual(['returned_to_sender', 'failed_attempt', 'pre_transit']);
  });

  it('an answer without shipments maps to nothing', () => {
    expect(mapDhlResponse({ shipments: [] })).toBeNull();
  });

  it('builds the documented request', () => {
    expect(dhlRequest({ baseUrl: 'https://api-eu.dhl.com/', apiKey: 'k', trackingNumber: '00340 434', service: 'parcel-de' })).toEqual({
      url: 'https://api-eu.dhl.com/track/shipments?trackingNumber=00340+434&service=parcel-de',
      headers: { 'DHL-API-Key': 'k' },
    });
  });
});
