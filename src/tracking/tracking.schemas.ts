// The normalized tracking model: what every carrier adapter maps its own codes to, and what
// the tracking service stores and turns into order actions.
import { Type, type Static } from 'typebox';

export const TRACKING_STATUSES = [
  'pre_transit',
  'in_transit',
  'out_for_delivery',
  'available_for_pickup',
  'failed_attempt',
  'exception',
  'delivered',
  'returned_to_sender',
  'unknown',
] as const;
export type TrackingStatus = (typeof TRACKING_STATUSES)[number];

export const TrackingStatusSchema = Type.Enum([...TRACKING_STATUSES]);

/** One carrier event, normalized. */
export interface TrackingEvent {
  occurredAt: Date;
  status: TrackingStatus;
  /** The carrier's own code (DHL statusCode, AfterShip subtag, a generic API's code). */
  carrierCode: string | null;
  /** The carrier's own words. */
  carrierText: string | null;
  location: string | null;
}

/** What a carrier says about one parcel now. */
export interface TrackingResult {
  /** The parcel's current normalized status. */
  status: TrackingStatus;
  carrierStatus: string | null;
  /** true: a failure the carrier will not recover from (lost, destroyed): not_delivered before delivery. */
  finalFailure: boolean;
  /** Every event the carrier lists (any order); stored once each. */
  events: TrackingEvent[];
}

/** A shipment a tracking connector looks after. */
export interface TrackedShipment {
  id: number;
  shopPk: number;
  marketplacePk: number;
  orderPk: number;
  carrier: string;
  trackingCode: string;
  /** The items currently in this package (not cancelled, not moved to a newer shipment). */
  itemPks: number[];
  /** Some of those items are delivered already (a return now means `returned`). */
  itemsDelivered: boolean;
  /** The last order action tried for it (applied or refused). */
  lastAction: string | null;
}

export interface SelectOptions {
  /** Carrier names as sent in `ship` (compared case-insensitively). */
  carriers: string[];
  /** null: every shop. */
  shopPk: number | null;
  /** A shipment checked less than this long ago waits (seconds). */
  minIntervalSeconds: number;
  /** Only shipments last checked before this instant (the run's start: one check per run). */
  checkedBefore: Date;
  /** Delivered shipments are followed this many days for a return (0: final at delivery). */
  followDeliveredDays: number;
  limit: number;
}

export interface RecordOutcome {
  newEvents: number;
  /** Events dated before an event they logically follow (kept, marked with a warning). */
  outOfOrder: number;
  /** The order action derived from the status, if any. */
  action: string | null;
  applied: boolean;
  /** The state table refused the action: recorded as a warning event. */
  refused: boolean;
}

/** A stored tracking event as the API and admin show it. */
export const StoredTrackingEvent = Type.Object({
  occurred_at: Type.String({ format: 'date-time' }),
  status: TrackingStatusSchema,
  carrier_code: Type.Union([Type.String(), Type.Null()]),
  carrier_text: Type.Union([Type.String(), Type.Null()]),
  location: Type.Union([Type.String(), Type.Null()]),
  warning: Type.Union([Type.String(), Type.Null()]),
  source: Type.String(),
});
export type StoredTrackingEvent = Static<typeof StoredTrackingEvent>;

/** The tracking state of one shipment. */
export const ShipmentTracking = Type.Object({
  shipment_id: Type.Integer(),
  status: TrackingStatusSchema,
  carrier_status: Type.Union([Type.String(), Type.Null()]),
  final: Type.Boolean(),
  checks: Type.Integer(),
  last_checked_at: Type.Union([Type.String(), Type.Null()]),
  last_error: Type.Union([Type.String(), Type.Null()]),
  error_count: Type.Integer(),
  events: Type.Array(StoredTrackingEvent),
});
export type ShipmentTracking = Static<typeof ShipmentTracking>;
