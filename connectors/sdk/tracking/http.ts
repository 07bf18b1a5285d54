// One carrier API call with the polling rules: every attempt waits its turn at the connector's
// rate limiter; 5xx, 429, network errors and time-outs are retried with exponential backoff
// and jitter (p-retry), a 429's Retry-After honoured; any other 4xx is final at once. The
// request itself goes through the context's http port (waybill's outbound rules): the answer is
// capped (max_response_bytes) and a redirect to another origin fails the call (the API key stays).
import { setTimeout as sleep } from 'node:timers/promises';
import pRetry from 'p-retry';
import { OutboundError, type HttpAnswer, type HttpPort, type OutboundFailure } from '../contract.ts';
import type { RateLimiter } from '../../../src/system/rate-limit.ts';

/** Same-origin redirects followed (a carrier moving a path); another origin is always refused. */
const CARRIER_REDIRECTS = 3;

/** A failed carrier call. `status` null: no answer (network error, time-out). */
export class CarrierError extends Error {
  readonly status: number | null;
  readonly retryable: boolean;
  /** From a 429/503 Retry-After header, milliseconds. */
  readonly retryAfterMs: number | null;

  /** The outbound rules refused the answer (too large, redirected elsewhere): not retried. */
  readonly refusedBy: OutboundFailure | null;

  /** `permanent`: the same call would fail the same way (a value that cannot be sent): not retried. */
  constructor(
    message: string,
    status: number | null,
    options: { retryAfterMs?: number | null; cause?: unknown; refusedBy?: OutboundFailure; permanent?: boolean } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'CarrierError';
    this.status = status;
    this.refusedBy = options.refusedBy ?? null;
    this.retryable = options.permanent !== true && this.refusedBy === null && (status === null || status === 429 || status >= 500);
    this.retryAfterMs = options.retryAfterMs ?? null;
  }

  /** 401/403: the API key is wrong; every further call would fail the same way. */
  get credentialsRefused(): boolean {
    return this.status === 401 || this.status === 403;
  }

  /**
   * The carrier's API itself misbehaves (wrong key, answers past the cap, redirects to another
   * host): every further call would too, so the run stops and is recorded as failed.
   */
  get stopsRun(): boolean {
    return this.credentialsRefused || this.refusedBy !== null;
  }
}

export interface CallSettings {
  /** The context's outbound client. */
  http: HttpPort;
  limiter: RateLimiter;
  timeoutMs: number;
  retries: number;
  retryMinMs: number;
  retryMaxMs: number;
  /** The run's signal (shutdown): aborts the request in flight, and no retry after it. */
  signal: AbortSignal;
  /**
   * Aborted when no new attempt may start (shutdown, or the run stopped: a Retry-After, a
   * refused key): waits at the rate limiter and between retries end; a request in flight finishes.
   */
  waitSignal?: AbortSignal;
  /** Label of the carrier-call metric (counted by the http port); omitted: not a carrier's call. */
  carrier?: string;
  /** Largest answer read, bytes (max_response_bytes). */
  maxBytes: number;
}

export interface CarrierResponse {
  status: number;
  body: unknown;
}

/** Retry-After as seconds or an HTTP date, in milliseconds from now; null when absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === '') return null;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.round(Number(value) * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

const problemText = (body: unknown): string => {
  if (typeof body === 'string') return body.slice(0, 200);
  const b = body as Record<string, unknown> | null;
  const meta = b?.meta as Record<string, unknown> | undefined;
  const parts = [b?.title, b?.detail, meta?.message, b?.message].filter((x) => typeof x === 'string' && x !== '');
  return parts.join(': ').slice(0, 300);
};

function parseBody(raw: Buffer): unknown {
  const text = raw.toString('utf8');
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** One call: GET by default; a POST's body is sent as given (content-type in headers). */
export interface ApiRequest {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
}

/** A 2xx answer with its headers (paging headers such as X-WP-TotalPages). */
export interface ApiResponse extends CarrierResponse {
  header(name: string): string | null;
}

async function attempt(req: ApiRequest, s: CallSettings): Promise<ApiResponse> {
  await s.limiter.take(s.waitSignal ?? s.signal);
  let res: HttpAnswer;
  try {
    // The time-out covers the whole answer, body included.
    res = await s.http.request(req.url, {
      method: req.method ?? 'GET',
      ...(req.body === undefined ? {} : { body: req.body }),
      headers: { accept: 'application/json', ...req.headers },
      signal: AbortSignal.any([s.signal, AbortSignal.timeout(s.timeoutMs)]),
      maxBytes: s.maxBytes,
      maxRedirects: CARRIER_REDIRECTS,
      ...(s.carrier === undefined ? {} : { carrier: s.carrier }),
    });
  } catch (error) {
    if (s.signal.aborted) throw error;
    if (error instanceof OutboundError) throw new CarrierError(error.message, null, { cause: error, refusedBy: error.reason });
    const timedOut = (error as { name?: string }).name === 'TimeoutError';
    throw new CarrierError(timedOut ? `no answer within ${s.timeoutMs} ms` : `network error: ${(error as Error).message}`, null, {
      cause: error,
    });
  }
  const body = parseBody(res.body);
  if (res.status >= 200 && res.status < 300) {
    // A 2xx that is not JSON (an HTML page, a truncated answer) says nothing about the parcel:
    // that shipment's error, not a successful check (kept against it until the next check).
    if (typeof body === 'string')
      throw new CarrierError(`HTTP ${res.status} answer is not JSON (${JSON.stringify(body.slice(0, 80))})`, res.status);
    return { status: res.status, body, header: (name) => res.header(name) };
  }
  const wait = res.status === 429 || res.status === 503 ? retryAfterMs(res.header('retry-after')) : null;
  const why = problemText(body);
  throw new CarrierError(`HTTP ${res.status}${why === '' ? '' : ` (${why})`}`, res.status, { retryAfterMs: wait });
}

/** GETs a carrier URL under the connector's rules; resolves with the 2xx answer or throws CarrierError. */
export const carrierGet = (url: string, headers: Record<string, string>, s: CallSettings): Promise<CarrierResponse> =>
  apiCall({ url, headers }, s);

/**
 * One call to a remote API under these rules (any method): the 2xx answer, or CarrierError.
 * A POST is retried like a GET: callers send only idempotent POSTs (a token, a GraphQL query).
 */
export async function apiCall(req: ApiRequest, s: CallSettings): Promise<ApiResponse> {
  return pRetry(() => attempt(req, s), {
    retries: s.retries,
    factor: 2,
    minTimeout: s.retryMinMs,
    maxTimeout: s.retryMaxMs,
    randomize: true,
    signal: s.waitSignal ?? s.signal,
    shouldRetry: ({ error }) =>
      error instanceof CarrierError &&
      error.retryable &&
      // A Retry-After longer than we would wait: give up now, the next run tries again.
      (error.retryAfterMs === null || error.retryAfterMs <= s.retryMaxMs),
    onFailedAttempt: async ({ error, retryDelay, retriesLeft }) => {
      if (!(error instanceof CarrierError) || !error.retryable || retriesLeft === 0 || error.retryAfterMs === null) return;
      if (error.retryAfterMs > s.retryMaxMs) return;
      s.limiter.pauseUntil(Date.now() + error.retryAfterMs);
      // p-retry waits retryDelay after this: together at least Retry-After.
      const extra = error.retryAfterMs - retryDelay;
      if (extra > 0) await sleep(extra, undefined, { signal: s.waitSignal ?? s.signal });
    },
  });
}
