// AfterShip tracking API: GET {base_url}/trackings/{slug}/{tracking_number} with the key in the
// as-api-key header (base_url e.g. https://api.aftership.com/tracking/2024-01). The slug is
// AfterShip's courier code: options.slugs maps a shop's carrier name to it (default: the name
// lower-cased). Webhooks: base64 HMAC-SHA256 of the raw body with the webhook secret, in the
// aftership-hmac-sha256 header.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { joinUrl, pathSegment } from '../sdk/index.ts';

export function aftershipRequest(
  baseUrl: string,
  apiKey: string,
  slug: string,
  trackingNumber: string,
): { url: string; headers: Record<string, string> } {
  return {
    url: joinUrl(baseUrl, `/trackings/${pathSegment(slug, 'courier slug')}/${pathSegment(trackingNumber)}`),
    headers: { 'as-api-key': apiKey, 'content-type': 'application/json' },
  };
}

export const slugOf = (carrier: string, slugs: Record<string, string>): string => {
  const lower = carrier.toLowerCase();
  const hit = Object.entries(slugs).find(([name]) => name.toLowerCase() === lower);
  return hit?.[1] ?? lower;
};

export const aftershipSignature = (secret: string, rawBody: Buffer): string =>
  createHmac('sha256', secret).update(rawBody).digest('base64');

/** true when the header carries the body's signature under this secret (constant-time compare). */
export function verifyAftership(secret: string, rawBody: Buffer, header: string | string[] | undefined): boolean {
  if (typeof header !== 'string' || header === '') return false;
  const expected = Buffer.from(aftershipSignature(secret, rawBody));
  const given = Buffer.from(header.trim());
  return given.length === expected.length && timingSafeEqual(given, expected);
}
