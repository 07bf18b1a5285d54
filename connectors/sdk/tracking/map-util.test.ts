// The carrier mappings' shared helpers: place texts without repeated parts, and a delivery time
// given outside the events becoming the delivered event.
import { describe, expect, it } from 'vitest';
import { placeText, withDelivery } from './map-util.ts';

describe('placeText', () => {
  it.each([
    [{ locality: 'Henderson, NV, US', postal: '89014', country: 'US' }, 'Henderson, NV 89014, US'],
    [{ locality: 'HENDERSON', region: 'NV', postal: '89014', country: 'US' }, 'HENDERSON, NV 89014, US'],
    [{ locality: 'Henderson, NV 89014, US', postal: '89014', country: 'US' }, 'Henderson, NV 89014, US'],
    [{ locality: 'Berlin', postal: '10117', country: 'DE' }, 'Berlin, 10117, DE'],
    [{ locality: 'New York, NY, USA' }, 'New York, NY, USA'],
    [{ locality: 'Lyon, Lyon', region: 'lyon' }, 'Lyon'],
    [{ country: 'DE' }, 'DE'],
    [{ locality: ' ', postal: null }, null],
  ])('%j -> %s', (place, expected) => {
    expect(placeText(place)).toBe(expected);
  });
});

describe('withDelivery', () => {
  const transit = {
    occurredAt: new Date('2026-11-19T10:00:00Z'),
    status: 'in_transit' as const,
    carrierCode: 'InTransit_001',
    carrierText: null,
    location: null,
  };

  it('a delivery time outside the events becomes the delivered event', () => {
    expect(withDelivery([transit], '2026-11-20T14:02:00', 'Delivered_001')).toEqual([
      transit,
      {
        occurredAt: new Date('2026-11-20T14:02:00Z'),
        status: 'delivered',
        carrierCode: 'Delivered_001',
        carrierText: 'Delivered',
        location: null,
      },
    ]);
  });

  it('not when an event says delivered already, nor without a readable time', () => {
    const delivered = { ...transit, status: 'delivered' as const };
    expect(withDelivery([delivered], '2026-11-20T14:02:00', 'x')).toEqual([delivered]);
    expect(withDelivery([transit], null, 'x')).toEqual([transit]);
    expect(withDelivery([transit], 'soon', 'x')).toEqual([transit]);
  });
});
