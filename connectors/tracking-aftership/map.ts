// AfterShip tracking -> the normalized model. AfterShip's tag is the delivery status; its
// subtag refines it (e.g. Exception_011 "returned to sender", Exception_013 "lost"). The
// subtag table wins; a subtag not listed falls back to its tag.
import {
  type TrackingEvent,
  type TrackingResult,
  type TrackingStatus,
  carrierTime,
  placeText,
  resultOf,
  textOf,
  withDelivery,
} from '../sdk/index.ts';

export const AFTERSHIP_TAGS: Record<string, TrackingStatus> = {
  Pending: 'pre_transit',
  InfoReceived: 'pre_transit',
  InTransit: 'in_transit',
  OutForDelivery: 'out_for_delivery',
  AttemptFail: 'failed_attempt',
  Delivered: 'delivered',
  AvailableForPickup: 'available_for_pickup',
  Exception: 'exception',
  // No tracking information for 30 days: AfterShip stopped tracking; nothing is known.
  Expired: 'unknown',
};

/** Subtags whose meaning differs from their tag's, with AfterShip's own wording. */
export const AFTERSHIP_SUBTAGS: Record<string, { status: TrackingStatus; final?: boolean; meaning: string }> = {
  Exception_010: { status: 'returned_to_sender', meaning: 'Returning package to sender' },
  Exception_011: { status: 'returned_to_sender', meaning: 'Package returned to sender' },
  Exception_013: { status: 'exception', final: true, meaning: 'Package lost' },
};

export function mapAftershipTag(tag: unknown, subtag: unknown): { status: TrackingStatus; final: boolean } {
  const sub = typeof subtag === 'string' ? AFTERSHIP_SUBTAGS[subtag] : undefined;
  if (sub !== undefined) return { status: sub.status, final: sub.final === true };
  const t = typeof tag === 'string' ? tag : typeof subtag === 'string' ? subtag.split('_')[0]! : '';
  return { status: AFTERSHIP_TAGS[t] ?? 'unknown', final: false };
}

interface Checkpoint {
  checkpoint_time?: string;
  tag?: string;
  subtag?: string;
  subtag_message?: string;
  message?: string;
  location?: string | null;
  city?: string | null;
  state?: string | null;
  zip?: string | null;
  postal_code?: string | null;
  country_name?: string | null;
  country_region_name?: string | null;
  country_iso3?: string | null;
  country_region?: string | null;
}

export interface AftershipTracking {
  tracking_number?: string;
  slug?: string;
  tag?: string;
  subtag?: string;
  subtag_message?: string;
  /** When the parcel was delivered (set with the Delivered tag; not always among the checkpoints). */
  shipment_delivery_date?: string | null;
  checkpoints?: Checkpoint[];
}

const toEvent = (c: Checkpoint): TrackingEvent | null => {
  const at = carrierTime(c.checkpoint_time);
  if (at === null) return null;
  return {
    occurredAt: at,
    status: mapAftershipTag(c.tag, c.subtag).status,
    carrierCode: textOf(c.subtag) ?? textOf(c.tag),
    carrierText: textOf(c.message) ?? textOf(c.subtag_message),
    // AfterShip's own location text when it gives one; else its parts.
    location:
      textOf(c.location) !== null
        ? placeText({ locality: c.location })
        : placeText({
            locality: c.city,
            region: c.state,
            postal: c.zip ?? c.postal_code,
            country: c.country_region_name ?? c.country_name ?? c.country_region ?? c.country_iso3,
          }),
  };
};

/** One AfterShip tracking object (API `data.tracking` or `data`, webhook `msg`). */
export function mapAftershipTracking(t: AftershipTracking): TrackingResult {
  // A garbled answer or webhook (checkpoints not a list, null entries) yields no events, not a crash.
  const checkpoints = Array.isArray(t.checkpoints) ? t.checkpoints.filter((c): c is Checkpoint => typeof c === 'object' && c !== null) : [];
  const listed = checkpoints.map(toEvent).filter((e): e is TrackingEvent => e !== null);
  const events = withDelivery(listed, t.shipment_delivery_date, t.tag === 'Delivered' ? (textOf(t.subtag) ?? 'Delivered') : 'Delivered');
  const mapped = mapAftershipTag(t.tag, t.subtag);
  return resultOf(mapped.status, textOf(t.subtag) ?? textOf(t.tag), mapped.final, events);
}

/** The tracking object of a GET answer: `data.tracking` (legacy get by slug and number) or `data` (get by id). */
export function trackingOfResponse(body: unknown): AftershipTracking | null {
  const data = (body as { data?: Record<string, unknown> } | null)?.data;
  if (data === undefined || data === null) return null;
  const t = (data.tracking ?? data) as AftershipTracking;
  return typeof t === 'object' && t !== null && (t.tag !== undefined || t.checkpoints !== undefined) ? t : null;
}
