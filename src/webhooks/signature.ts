// Standard Webhooks (standardwebhooks.com): HMAC-SHA256 over "<id>.<timestamp>.<body>",
// keyed by the base64 part of a "whsec_..." secret, sent as "v1,<base64>".
import { createHmac, timingSafeEqual } from 'node:crypto';

const keyOf = (secret: string): Buffer =>
  secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : Buffer.from(secret, 'utf8');

export function sign(secret: string, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', keyOf(secret)).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** Several secrets (a rotation's overlap): one signature each, space-separated, as the spec allows. */
export function signedHeaders(secrets: string | string[], id: string, body: string, now = Date.now()): SignedHeaders {
  const timestamp = Math.floor(now / 1000);
  const signatures = (Array.isArray(secrets) ? secrets : [secrets]).map((s) => sign(s, id, timestamp, body));
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signatures.join(' ') };
}

/**
 * X-Madkting-Signature: hex HMAC-SHA256 of the body's exact bytes, keyed by the secret as shown
 * (the whole "whsec_..." text, UTF-8), the way existing clients check it.
 */
export const madktingSignature = (secret: string, body: string): string => createHmac('sha256', secret).update(body).digest('hex');

export type VerifyResult = { ok: true } | { ok: false; reason: string };

/** Checks headers against body; tolerance is the allowed clock difference, seconds (default 5 min). */
export function verify(
  secret: string,
  headers: Record<string, string | string[] | undefined>,
  body: string,
  { toleranceSeconds = 300, now = Date.now() } = {},
): VerifyResult {
  const id = headers['webhook-id'];
  const ts = headers['webhook-timestamp'];
  const sig = headers['webhook-signature'];
  if (typeof id !== 'string' || typeof ts !== 'string' || typeof sig !== 'string') return { ok: false, reason: 'missing webhook-id, webhook-timestamp or webhook-signature' };
  const timestamp = Number(ts);
  if (!Number.isInteger(timestamp)) return { ok: false, reason: 'webhook-timestamp is not a number' };
  if (Math.abs(now / 1000 - timestamp) > toleranceSeconds) return { ok: false, reason: 'webhook-timestamp is outside the tolerance' };
  const expected = Buffer.from(sign(secret, id, timestamp, body).slice(3), 'base64');
  // The header may carry several space-separated signatures (key rotation).
  for (const candidate of sig.split(' ')) {
    const [version, value] = candidate.split(',');
    if (version !== 'v1' || value === undefined) continue;
    const given = Buffer.from(value, 'base64');
    if (given.length === expected.length && timingSafeEqual(given, expected)) return { ok: true };
  }
  return { ok: false, reason: 'signature does not match' };
}
