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

/** "Berlin, 10117, DE" from whatever parts are given; null when none. */
export const placeText = (...parts: unknown[]): string | null => {
  const given = parts.filter((p): p is string | number => (typeof p === 'string' && p.trim() !== '') || typeof p === 'number').map(String);
  return given.length === 0 ? null : given.join(', ');
};

export const textOf = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value.trim() : null);

/** Newest first by time (a stable order for "the current status" when a carrier lists oldest first). */
export const newestFirst = (events: TrackingEvent[]): TrackingEvent[] => [...events].sort((a, b) => b.occurredAt.getTime() - a.occurredAt.getTime());

/** A result whose current status is given; the events are kept as listed. */
export const resultOf = (status: TrackingStatus, carrierStatus: string | null, finalFailure: boolean, events: TrackingEvent[]): TrackingResult =>
  ({ status, carrierStatus, finalFailure, events });
