// A stored tracking event as the API shows it: in a shipment's tracking and in the order's
// shipments alike. Pure, no queries.
import type { Selectable } from 'kysely';
import type { Database } from '../db/database.ts';
import type { StoredTrackingEvent, TrackingStatus } from './tracking.schemas.ts';

export type TrackingEventRow = Pick<
  Selectable<Database['tracking_events']>,
  'occurred_at' | 'status' | 'carrier_code' | 'carrier_text' | 'location' | 'warning' | 'source'
>;

export const toStoredEvent = (e: TrackingEventRow): StoredTrackingEvent => ({
  occurred_at: e.occurred_at.toISOString(),
  status: e.status as TrackingStatus,
  carrier_code: e.carrier_code,
  carrier_text: e.carrier_text,
  location: e.location,
  warning: e.warning,
  source: e.source,
});
