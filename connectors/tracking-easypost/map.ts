// EasyPost Tracker -> the normalized model. EasyPost normalizes carriers itself: its `status`
// maps one to one, with `return_to_sender` and `failure` renamed, and `status_detail` saying
// when a failure is final (lost, destroyed...).
import { type TrackingEvent, type TrackingResult, type TrackingStatus, carrierTime, placeText, resultOf, textOf } from '../sdk/index.ts';

export const EASYPOST_STATUSES: Record<string, TrackingStatus> = {
  unknown: 'unknown',
  pre_transit: 'pre_transit',
  in_transit: 'in_transit',
  out_for_delivery: 'out_for_delivery',
  available_for_pickup: 'available_for_pickup',
  delivered: 'delivered',
  return_to_sender: 'returned_to_sender',
  failure: 'exception',
  // The label was voided or the tracker stopped: nothing is known of the parcel.
  cancelled: 'unknown',
  error: 'unknown',
};

/** status_detail values of a failure the carrier will not recover from. */
const FINAL_DETAILS = /lost|destroyed|damaged|not_delivered_disposed/;

interface Location {
  city?: string | null;
  state?: string | null;
  zip?: string | null;
  country?: string | null;
}

interface Detail {
  datetime?: string;
  message?: string | null;
  description?: string | null;
  status?: string;
  status_detail?: string | null;
  tracking_location?: Location | null;
}

export interface EasypostTracker {
  id?: string;
  tracking_code?: string;
  carrier?: string;
  status?: string;
  status_detail?: string | null;
  tracking_details?: Detail[];
}

export function mapEasypostStatus(status: unknown, detail: unknown): { status: TrackingStatus; final: boolean } {
  const mapped = typeof status === 'string' ? (EASYPOST_STATUSES[status] ?? 'unknown') : 'unknown';
  return { status: mapped, final: mapped === 'exception' && typeof detail === 'string' && FINAL_DETAILS.test(detail) };
}

const toEvent = (d: Detail): TrackingEvent | null => {
  const at = carrierTime(d.datetime);
  if (at === null) return null;
  const l = d.tracking_location;
  return {
    occurredAt: at,
    status: mapEasypostStatus(d.status, d.status_detail).status,
    carrierCode: textOf(d.status_detail) ?? textOf(d.status),
    carrierText: textOf(d.message) ?? textOf(d.description),
    location: placeText({ locality: l?.city, region: l?.state, postal: l?.zip, country: l?.country }),
  };
};

/** One Tracker (GET answer's `trackers[0]`, or a tracker.updated event's `result`). */
export function mapEasypostTracker(t: EasypostTracker): TrackingResult {
  const details = Array.isArray(t.tracking_details)
    ? t.tracking_details.filter((d): d is Detail => typeof d === 'object' && d !== null)
    : [];
  const mapped = mapEasypostStatus(t.status, t.status_detail);
  return resultOf(
    mapped.status,
    textOf(t.status_detail) ?? textOf(t.status),
    mapped.final,
    details.map(toEvent).filter((e): e is TrackingEvent => e !== null),
  );
}

/** The newest tracker of a list answer (`{"trackers":[...]}`, newest first); null when none. */
export function trackerOfList(body: unknown): EasypostTracker | null {
  const list = (body as { trackers?: unknown } | null)?.trackers;
  const first: unknown = Array.isArray(list) ? list[0] : undefined;
  return typeof first === 'object' && first !== null && typeof (first as EasypostTracker).status === 'string'
    ? (first as EasypostTracker)
    : null;
}
