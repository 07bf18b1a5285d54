// Options every tracking connector takes (INTERFACE.md, Connectors): where the carrier API is,
// which shipments are its (carriers, case-insensitive, as sent in `ship`), and how hard it may
// poll. The entry's `shop_pk` (optional) limits it to one shop.
import { Type } from 'typebox';

export const ENV_NAME = '^[A-Za-z_][A-Za-z0-9_]*$';

export const pollingOptions = {
  /** The carrier API's root, e.g. https://api-eu.dhl.com (tests and trials: a local server). */
  base_url: Type.String({ pattern: '^https?://', description: 'carrier API root (http or https)' }),
  /** Carrier names of the shipments it tracks, as shops send them in `ship` (case-insensitive). */
  carriers: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { minItems: 1 }),
  /** Requests in flight at once. */
  concurrency: Type.Integer({ minimum: 1, maximum: 200, default: 4 }),
  /** Requests started per second at most (the carrier's rate limit; retries count too). */
  requests_per_second: Type.Number({ exclusiveMinimum: 0, maximum: 10_000, default: 5 }),
  /**
   * Allowance (ms) for the varying delay between our start of a request and its arrival at
   * the carrier: starts are spaced (1000 + this) / requests_per_second apart, so the carrier
   * never counts more than requests_per_second in a second (costs this/1000 of throughput).
   */
  rate_jitter_ms: Type.Integer({ minimum: 0, maximum: 1_000, default: 100 }),
  /** Shipments selected per database round trip. */
  batch_size: Type.Integer({ minimum: 1, maximum: 5_000, default: 200 }),
  /** A shipment is checked at most once per this many seconds (default 30 minutes). */
  min_interval_seconds: Type.Integer({ minimum: 0, maximum: 30 * 86_400, default: 1_800 }),
  /** A run starts no new check after this many seconds; the rest waits for the next tick (oldest first). */
  max_run_seconds: Type.Number({ exclusiveMinimum: 0, maximum: 86_400, default: 50 }),
  /** Time-out of one HTTP request, milliseconds. */
  timeout_ms: Type.Integer({ minimum: 1, maximum: 300_000, default: 10_000 }),
  /** Retries of one check after a 5xx, 429, network error or time-out (exponential backoff with jitter). */
  retries: Type.Integer({ minimum: 0, maximum: 20, default: 3 }),
  /** First backoff delay, milliseconds (doubles each retry, times a random 1-2). */
  retry_min_ms: Type.Integer({ minimum: 0, maximum: 600_000, default: 500 }),
  /**
   * Longest backoff delay, milliseconds; also the longest Retry-After waited for inside a check.
   * A longer one throttles the connector: the run stops and no run starts before that time.
   */
  retry_max_ms: Type.Integer({ minimum: 0, maximum: 3_600_000, default: 30_000 }),
  /** Largest answer read from the carrier, bytes (default 4 MiB); a larger one fails the run. */
  max_response_bytes: Type.Integer({ minimum: 1_024, maximum: 256 * 1024 * 1024, default: 4 * 1024 * 1024 }),
  /** Delivered parcels are followed this many days to catch a return (0: final at delivery). */
  follow_delivered_days: Type.Integer({ minimum: 0, maximum: 365, default: 0 }),
};

export interface PollingOptions {
  base_url: string;
  carriers: string[];
  concurrency: number;
  requests_per_second: number;
  rate_jitter_ms: number;
  batch_size: number;
  min_interval_seconds: number;
  max_run_seconds: number;
  timeout_ms: number;
  retries: number;
  retry_min_ms: number;
  retry_max_ms: number;
  max_response_bytes: number;
  follow_delivered_days: number;
}
