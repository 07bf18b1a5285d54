// Small helpers the carrier mappings share: carrier times, location text, the current status.
import type { TrackingEvent, TrackingResult, TrackingStatus } from '../../../src/tracking/tracking.schemas.ts';

/**
 * A carrier's timestamp as a Date. Times without a zone (AfterShip checkpoints, some DHL
 * services give local wall-clock times) are read as UTC; null when missing or unreadable.
 */
export function carrierTime(value: unknown): Date | null {
  if (typeof value === 'number' && Number.isFinite(value)) return new Date(value < 1e12 ? value * 1000 : value);
  if (typeof value !== 'string' || value.trim() === '') return null;
  const v = value.trim();
  const zoned = /([zZ]|[+-]\d{2}:?\d{2})$/.test(v) || !/^\d{4}-\d{2}-\d{2}/.test(v) ? v : `${v}Z`;
  const d = new Date(zoned);
  return Number.isNaN(d.getTime()) ? null : d;
}

export interface Place {
  /** City, or a carrier's whole locality text ("Henderson, NV, US"). */
  locality?: unknown;
  /** State or province. */
  region?: unknown;
  postal?: unknown;
  country?: unknown;
}

const part = (v: unknown): string | null => (typeof v === 'number' ? String(v) : textOf(v));

/**
 * One place text from a carrier's parts, each said once: "Berlin, 10117, DE",
 * "Henderson, NV 89014, US" (a postal code follows its region). A locality that already holds
 * the country or postal code ("Henderson, NV, US") does not repeat them. null when none given.
 */
export function placeText(p: Place): string | null {
  const [region, postal, country] = [part(p.region), part(p.postal), part(p.country)];
  const same = (a: string, b: string | null) => b !== null && a.toLowerCase() === b.toLowerCase();
  const tokens: string[] = [];
  for (const t of (part(p.locality) ?? '').split(/\s*,\s*/)) {
    if (t !== '' && !same(t, country) && !same(t, postal) && !tokens.some((x) => same(x, t))) tokens.push(t);
  }
  if (region !== null && !tokens.some((x) => same(x, region))) tokens.push(region);
  if (postal !== null && !tokens.some((x) => x.split(/\s+/).some((w) => same(w, postal)))) {
    // After a region ("NV 89014"); after a lone city it stands on its own ("Berlin, 10117").
    if (tokens.length >= 2) tokens[tokens.length - 1] = `${tokens.at(-1)!} ${postal}`;
    else tokens.push(postal);
  }
  if (country !== null) tokens.push(country);
  return tokens.length === 0 ? null : tokens.join(', ');
}

export const textOf = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value.trim() : null);

/**
 * A carrier's delivery time given outside its events (AfterShip `shipment_delivery_date`, DHL's
 * proof of delivery) becomes the delivered event when the events lack one.
 */
export function withDelivery(
  events: TrackingEvent[],
  deliveredAt: unknown,
  carrierCode: string | null,
  carrierText = 'Delivered',
): TrackingEvent[] {
  const at = carrierTime(deliveredAt);
  if (at === null || events.some((e) => e.status === 'delivered')) return events;
  return [...events, { occurredAt: at, status: 'delivered', carrierCode, carrierText, location: null }];
}

/** Newest first by time (a stable order for "the current status" when a carrier lists oldest first). */
export const newestFirst = (events: TrackingEvent[]): TrackingEvent[] =>
  [...events].sort((a, b) => b.occurredAt.getTime() - a.occurredAt.getTime());

/** A result whose current status is given; the events are kept as listed. */
export const resultOf = (
  status: TrackingStatus,
  carrierStatus: string | null,
  finalFailure: boolean,
  events: TrackingEvent[],
): TrackingResult => ({ status, carrierStatus, finalFailure, events });
