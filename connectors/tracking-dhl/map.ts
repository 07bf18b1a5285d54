// DHL Shipment Tracking - Unified API -> the normalized model. DHL gives five statusCodes; the
// finer meaning (out for delivery, at a pickup point, a failed attempt, a return) is only in
// the event's `status` / `description` text, so each code has a small table of text rules,
// checked in order, first match wins.
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

export const DHL_STATUS_CODES = ['pre-transit', 'transit', 'delivered', 'failure', 'unknown'] as const;

interface Rule {
  /** Matched against "status description remark" of the event. */
  text: RegExp;
  status: TrackingStatus;
  /** A failure DHL will not recover from (lost, destroyed). */
  final?: boolean;
}

const RETURNED = /return(ed|ing)? to (the )?(sender|shipper)|returned to origin|return shipment/i;

/** statusCode -> text rules (first match) and the status when none matches. */
export const DHL_MAPPING: Record<(typeof DHL_STATUS_CODES)[number], { rules: Rule[]; otherwise: TrackingStatus }> = {
  'pre-transit': { rules: [], otherwise: 'pre_transit' },
  transit: {
    rules: [
      { text: RETURNED, status: 'returned_to_sender' },
      { text: /out for delivery|loaded onto the delivery vehicle|with delivery courier/i, status: 'out_for_delivery' },
      {
        text: /ready for (pick ?up|collection)|available for (pick ?up|collection)|at the (retail outlet|parcel ?shop|packstation|service ?point|post office)/i,
        status: 'available_for_pickup',
      },
    ],
    otherwise: 'in_transit',
  },
  // A parcel "delivered" back to its sender is a return, not a delivery.
  delivered: { rules: [{ text: RETURNED, status: 'returned_to_sender' }], otherwise: 'delivered' },
  failure: {
    rules: [
      { text: RETURNED, status: 'returned_to_sender' },
      { text: /\blost\b|destroyed|could not be (found|located)|disposed/i, status: 'exception', final: true },
      { text: /attempt|not at home|recipient (was )?not|no one|nobody|closed/i, status: 'failed_attempt' },
    ],
    otherwise: 'exception',
  },
  unknown: { rules: [], otherwise: 'unknown' },
};

interface DhlEvent {
  timestamp?: string;
  location?: { address?: { addressLocality?: string; postalCode?: string; countryCode?: string } };
  statusCode?: string;
  status?: string;
  description?: string;
  remark?: string;
}

/** One DHL event -> normalized (status) plus whether it is a final failure. */
export function mapDhlEvent(e: DhlEvent): { status: TrackingStatus; final: boolean } {
  const code = (e.statusCode ?? 'unknown').toLowerCase() as keyof typeof DHL_MAPPING;
  const entry = DHL_MAPPING[code] ?? DHL_MAPPING.unknown;
  const text = [e.status, e.description, e.remark].filter((x) => typeof x === 'string').join(' ');
  const rule = entry.rules.find((r) => r.text.test(text));
  return { status: rule?.status ?? entry.otherwise, final: rule?.final === true };
}

const toEvent = (e: DhlEvent): TrackingEvent | null => {
  const at = carrierTime(e.timestamp);
  if (at === null) return null;
  const a = e.location?.address;
  return {
    occurredAt: at,
    status: mapDhlEvent(e).status,
    carrierCode: textOf(e.statusCode),
    carrierText: textOf([e.status, e.description].filter((x) => textOf(x) !== null).join(': ')),
    location: placeText({ locality: a?.addressLocality, postal: a?.postalCode, country: a?.countryCode }),
  };
};

/** The answer of GET /track/shipments for one tracking number; null when it holds no shipment. */
export function mapDhlResponse(body: unknown): TrackingResult | null {
  const shipment = (
    body as { shipments?: { status?: DhlEvent; events?: DhlEvent[]; details?: { proofOfDelivery?: { timestamp?: string } } }[] } | null
  )?.shipments?.[0];
  if (shipment === undefined) return null;
  const events = withDelivery(
    (shipment.events ?? []).map(toEvent).filter((e): e is TrackingEvent => e !== null),
    shipment.details?.proofOfDelivery?.timestamp,
    'delivered',
  );
  const current = shipment.status ?? shipment.events?.[0];
  if (current === undefined) return resultOf('unknown', null, false, events);
  const currentEvent = toEvent(current);
  // The current status is an event too (some services list no events).
  if (currentEvent !== null && events.length === 0) events.push(currentEvent);
  const mapped = mapDhlEvent(current);
  return resultOf(mapped.status, textOf(current.statusCode), mapped.final, events);
}
