// Standard Webhooks (standardwebhooks.com): HMAC-SHA256 over "<id>.<timestamp>.<body>",
// keyed by the base64 part of a "whsec_..." secret, sent as "v1,<base64>". Outgoing webhooks are
// signed by the `standardwebhooks` package, the specification's reference implementation.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** The HMAC key: the base64 part of "whsec_...", else the secret's UTF-8 bytes. */
const keyOf = (secret: string): Buffer =>
  secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : Buffer.from(secret, 'utf8');

export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** Several secrets (a rotation's overlap): one signature each, space-separated, as the spec allows. */
export function signedHeaders(secrets: string | string[], id: string, body: string, now = Date.now()): SignedHeaders {
  const timestamp = Math.floor(now / 1000);
  const at = new Date(timestamp * 1000);
  const signatures = (Array.isArray(secrets) ? secrets : [secrets]).map((s) => new Webhook(keyOf(s), { format: 'raw' }).sign(id, at, body));
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signatures.join(' ') };
}

/**
 * X-Madkting-Signature: hex HMAC-SHA256 of the body's exact bytes, keyed by the secret as shown
 * (the whole "whsec_..." text, UTF-8), the way existing clients check it.
 */
export const madktingSignature = (secret: string, body: string): string => createHmac('sha256', secret).update(body).digest('hex');

export type VerifyResult = { ok: true } | { ok: false; reason: string };

/**
 * Checks headers against body; tolerance is the allowed clock difference, seconds (default 5 min).
 * Not the package's verify: its tolerance is fixed at 5 minutes (a connector may allow up to a
 * day), and it hashes in JavaScript, several times slower than node:crypto on the large bodies
 * catalog webhooks carry (docs/benchmarks.md), while the event loop waits.
 */
export function verify(
  secret: string,
  headers: Record<string, string | string[] | undefined>,
  body: string,
  { toleranceSeconds = 300, now = Date.now() } = {},
): VerifyResult {
  const id = headers['webhook-id'];
  const ts = headers['webhook-timestamp'];
  const sig = headers['webhook-signature'];
  if (typeof id !== 'string' || typeof ts !== 'string' || typeof sig !== 'string')
    return { ok: false, reason: 'missing webhook-id, webhook-timestamp or webhook-signature' };
  const timestamp = Number(ts);
  if (!Number.isInteger(timestamp)) return { ok: false, reason: 'webhook-timestamp is not a number' };
  if (Math.abs(now / 1000 - timestamp) > toleranceSeconds) return { ok: false, reason: 'webhook-timestamp is outside the tolerance' };
  const expected = createHmac('sha256', keyOf(secret)).update(`${id}.${timestamp}.${body}`).digest();
  // The header may carry several space-separated signatures (key rotation).
  for (const candidate of sig.split(' ')) {
    const [version, value] = candidate.split(',');
    if (version !== 'v1' || value === undefined) continue;
    const given = Buffer.from(value, 'base64');
    if (given.length === expected.length && timingSafeEqual(given, expected)) return { ok: true };
  }
  return { ok: false, reason: 'signature does not match' };
}
