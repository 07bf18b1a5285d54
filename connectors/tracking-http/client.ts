// tracking-http's request: the URL template filled in ({base_url}, {tracking_code}, {carrier},
// the last two each one encoded path segment), the key in the configured header, and any fixed headers.
import { CarrierError, pathSegment, type CarrierResponse } from '../sdk/index.ts';
import { atPath } from './map.ts';

export interface HttpRequestOptions {
  base_url: string;
  url_template: string;
  auth_header?: string;
  auth_prefix: string;
  headers: Record<string, string>;
}

export function fillTemplate(template: string, values: { base_url: string; tracking_code: string; carrier: string }): string {
  return template
    .replaceAll('{base_url}', values.base_url.replace(/\/+$/, ''))
    .replaceAll('{tracking_code}', () => pathSegment(values.tracking_code))
    .replaceAll('{carrier}', () => pathSegment(values.carrier, 'carrier name'));
}

export function httpRequest(
  o: HttpRequestOptions,
  apiKey: string | null,
  trackingCode: string,
  carrier: string,
): { url: string; headers: Record<string, string> } {
  const headers: Record<string, string> = { ...o.headers };
  if (o.auth_header !== undefined && apiKey !== null) headers[o.auth_header] = `${o.auth_prefix}${apiKey}`;
  return { url: fillTemplate(o.url_template, { base_url: o.base_url, tracking_code: trackingCode, carrier }), headers };
}

/** The body of a 2xx, or a CarrierError when it holds nothing at status_path (an answer that is not the parcel's). */
export function httpBody(res: CarrierResponse, statusPath: string): unknown {
  const code = atPath(res.body, statusPath);
  if (code === undefined || code === null) throw new CarrierError(`HTTP ${res.status} answer has no status at ${statusPath}`, res.status);
  return res.body;
}
