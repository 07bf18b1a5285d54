// DHL Shipment Tracking - Unified API: GET {base_url}/track/shipments?trackingNumber=...,
// the key in the DHL-API-Key header. A 404 means DHL knows no such number (yet).
import { CarrierError, type CarrierResponse, joinUrl } from '../sdk/index.ts';

export interface DhlQuery {
  baseUrl: string;
  apiKey: string;
  trackingNumber: string;
  /** DHL's service filter (express, parcel-de, ecommerce, freight...); omitted: all. */
  service?: string;
  /** Language of descriptions (ISO 639-1), e.g. "en". */
  language?: string;
}

export function dhlRequest(q: DhlQuery): { url: string; headers: Record<string, string> } {
  const params = new URLSearchParams({ trackingNumber: q.trackingNumber });
  if (q.service !== undefined) params.set('service', q.service);
  if (q.language !== undefined) params.set('language', q.language);
  return { url: `${joinUrl(q.baseUrl, '/track/shipments')}?${params}`, headers: { 'DHL-API-Key': q.apiKey } };
}

/** The body of a 200, or a CarrierError when it lists no shipment. */
export function dhlBody(res: CarrierResponse): unknown {
  const shipments = (res.body as { shipments?: unknown[] } | null)?.shipments;
  if (!Array.isArray(shipments) || shipments.length === 0) throw new CarrierError('DHL answered 200 without a shipment', 200);
  return res.body;
}
