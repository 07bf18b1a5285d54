// EasyPost Trackers API: GET {base_url}/v2/trackers?tracking_code=...[&carrier=...] lists the
// account's trackers of a code (newest first), the API key as the HTTP Basic user with an empty
// password (base_url e.g. https://api.easypost.com). Webhooks: X-Hmac-Signature is
// "hmac-sha256-hex=" + the hex HMAC-SHA256 of the raw body, keyed by the webhook secret in
// Unicode NFKD form (as EasyPost's client libraries compute it).
import { createHmac, timingSafeEqual } from 'node:crypto';
import { joinUrl } from '../sdk/index.ts';

export function easypostRequest(
  baseUrl: string,
  apiKey: string,
  trackingCode: string,
  carrier: string | null,
): { url: string; headers: Record<string, string> } {
  const params = new URLSearchParams({ tracking_code: trackingCode });
  if (carrier !== null) params.set('carrier', carrier);
  return {
    url: `${joinUrl(baseUrl, '/v2/trackers')}?${params}`,
    headers: { authorization: `Basic ${Buffer.from(`${apiKey}:`).toString('base64')}` },
  };
}

/** A shop's carrier name -> EasyPost's carrier (USPS, UPS, FedEx...); null: not sent, EasyPost matches by code. */
export const carrierOf = (carrier: string, carriers: Record<string, string>): string | null => {
  const lower = carrier.toLowerCase();
  return Object.entries(carriers).find(([name]) => name.toLowerCase() === lower)?.[1] ?? null;
};

export const easypostSignature = (secret: string, rawBody: Buffer): string =>
  `hmac-sha256-hex=${createHmac('sha256', Buffer.from(secret.normalize('NFKD'), 'utf8'))
    .update(rawBody)
    .digest('hex')}`;

/** true when X-Hmac-Signature carries the body's signature under this secret (constant-time compare). */
export function verifyEasypost(secret: string, rawBody: Buffer, header: string | string[] | undefined): boolean {
  if (typeof header !== 'string' || header === '') return false;
  const expected = Buffer.from(easypostSignature(secret, rawBody));
  const given = Buffer.from(header.trim());
  return given.length === expected.length && timingSafeEqual(given, expected);
}
