// Options every catalog pull connector takes (INTERFACE.md, Connectors): where the system is,
// what a deletion there does here, and how its API is called (the outbound rules' time-out,
// answer cap, retries and rate). Each type adds its secrets' env names and its own options.
import dns from 'node:dns/promises';
import { Type } from 'typebox';
import { internalRange } from '../../../src/outbound/destination-policy.ts';
import { userError } from '../contract.ts';

export const ON_DELETE = ['ignore', 'out_of_stock', 'delete'] as const;
export type OnDelete = (typeof ON_DELETE)[number];

export const pullOptions = {
  /** The system's address (https://pim.example.com); plain http only for loopback or private addresses. */
  base_url: Type.String({ pattern: '^https?://[^/]+', description: "the system's address (https; http only on a private network)" }),
  /**
   * A product deleted (or disabled, archived) in the system: `ignore` leaves it as it is here,
   * `out_of_stock` keeps it with stock 0 and availability out_of_stock, `delete` soft-deletes it.
   */
  on_delete: Type.Union(
    ON_DELETE.map((v) => Type.Literal(v)),
    { default: 'out_of_stock' },
  ),
  /**
   * Seconds the next run's query reaches back before the last accepted cursor: products
   * changed in the same second as the last one seen, or committed late by the system, are read
   * again (and found unchanged, so nothing is sent twice).
   */
  overlap_seconds: Type.Integer({ minimum: 0, maximum: 86_400, default: 60 }),
  /** Requests started per second at most (retries count too). */
  requests_per_second: Type.Number({ exclusiveMinimum: 0, maximum: 1_000, default: 10 }),
  /** Time-out of one HTTP request, milliseconds, body included. */
  timeout_ms: Type.Integer({ minimum: 1, maximum: 300_000, default: 30_000 }),
  /** Retries of one request after a 5xx, 429, network error or time-out (exponential backoff with jitter). */
  retries: Type.Integer({ minimum: 0, maximum: 20, default: 3 }),
  /** First backoff delay, milliseconds (doubles each retry). */
  retry_min_ms: Type.Integer({ minimum: 0, maximum: 600_000, default: 500 }),
  /** Longest backoff delay and longest Retry-After waited for, ms; a longer one throttles the connector. */
  retry_max_ms: Type.Integer({ minimum: 0, maximum: 3_600_000, default: 30_000 }),
  /** Largest answer read, bytes (default 16 MiB: a page of 100 products with their texts). */
  max_response_bytes: Type.Integer({ minimum: 1_024, maximum: 256 * 1024 * 1024, default: 16 * 1024 * 1024 }),
};

export interface PullOptions {
  base_url: string;
  on_delete: OnDelete;
  overlap_seconds: number;
  requests_per_second: number;
  timeout_ms: number;
  retries: number;
  retry_min_ms: number;
  retry_max_ms: number;
  max_response_bytes: number;
}

const isLoopbackName = (host: string): boolean => host === 'localhost' || host.endsWith('.localhost');

/**
 * The outbound rule for a system's address: https, or plain http to a loopback or private
 * address only (a PIM on the same network), since credentials travel with every request.
 * A name is judged by every address it resolves to.
 */
export async function checkBaseUrl(baseUrl: string, lookup: (host: string) => Promise<string[]> = resolveAll): Promise<void> {
  const url = new URL(baseUrl);
  if (url.username !== '' || url.password !== '')
    throw userError(`base_url ${url.origin} must not carry credentials; name them by env var in the options.`);
  if (url.protocol === 'https:') return;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isLoopbackName(host.toLowerCase())) return;
  const addresses = internalRange(host) !== null ? [host] : await lookup(host).catch(() => []);
  if (addresses.length > 0 && addresses.every((a) => internalRange(a) !== null)) return;
  throw userError(
    `base_url ${url.origin} is plain http to a public address: credentials would travel unencrypted. Use https (http is allowed for loopback and private addresses only).`,
  );
}

async function resolveAll(host: string): Promise<string[]> {
  return (await dns.lookup(host, { all: true })).map((a) => a.address);
}
