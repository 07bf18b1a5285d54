// Carrier URLs built from shop data (a tracking code, a carrier name): each value is one path
// segment and can never change which path is called.
import { CarrierError } from './http.ts';

/** base_url + path, without a doubled or missing slash. */
export const joinUrl = (base: string, path: string): string => `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;

/**
 * A value as one encoded URL path segment. `/`, `?`, `#`, `%` and `\` are percent-encoded; an
 * empty value, `.` or `..` is refused (a CarrierError kept against the shipment), because URL
 * parsers remove dot segments even when percent-encoded (`%2E%2E`): `/trackings/ups/..`
 * would call `/trackings/`, another resource, with the API key.
 */
export function pathSegment(value: string, what = 'tracking code'): string {
  if (value === '' || value === '.' || value === '..') {
    throw new CarrierError(
      `the ${what} "${value}" cannot be put in the carrier's URL (it would change the path); the shipment is not checked`,
      null,
      { permanent: true },
    );
  }
  return encodeURIComponent(value);
}
