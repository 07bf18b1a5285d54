// A pull connector's calls to its system's API: the carrier calls' rules (connectors/sdk/
// tracking/http.ts: rate limit, time-out, answer cap, same-origin redirects, retries with
// backoff, Retry-After honoured) with the pull options. A failure becomes what the run records:
// a Retry-After longer than retry_max_ms throttles the connector, a refused key or request is
// the user's to fix (not retried), anything else is transient (the job retries the run).
import { rateLimiter } from '../../../src/system/rate-limit.ts';
import { MAX_THROTTLE_MS, throttled, userError, type ConnectorContext } from '../contract.ts';
import { unavailable } from '../../../src/errors.ts';
import { apiCall, CarrierError, type ApiRequest, type ApiResponse } from '../tracking/http.ts';
import type { PullOptions } from './options.ts';

export type { ApiRequest, ApiResponse } from '../tracking/http.ts';
export { CarrierError as ApiError } from '../tracking/http.ts';

/** Calls the system's API; each call (not each retry) counts as `requests` in the run. */
export type Api = (req: ApiRequest) => Promise<ApiResponse>;

export function pullApi(ctx: ConnectorContext<PullOptions>, system: string): Api {
  const raw = rawPullApi(ctx);
  return (req) =>
    raw(req).catch((error: unknown) => {
      throw runError(error, system);
    });
}

/** As pullApi, but a failure stays an ApiError (a client that answers a 401 by renewing its token); end with runError. */
export function rawPullApi(ctx: ConnectorContext<PullOptions>): Api {
  const o = ctx.options;
  const limiter = rateLimiter({ capacity: 1, everyMs: 1000 / o.requests_per_second });
  return async (req) => {
    ctx.report.count('requests');
    return apiCall(req, {
      http: ctx.http,
      limiter,
      timeoutMs: o.timeout_ms,
      retries: o.retries,
      retryMinMs: o.retry_min_ms,
      retryMaxMs: o.retry_max_ms,
      signal: ctx.signal,
      maxBytes: o.max_response_bytes,
    });
  };
}

/** What a failed call means for the run (see above); other errors pass unchanged. */
export function runError(error: unknown, system: string): unknown {
  if (!(error instanceof CarrierError)) return error;
  if (error.retryAfterMs !== null) {
    const until = new Date(Date.now() + Math.min(error.retryAfterMs, MAX_THROTTLE_MS));
    return throttled(
      until,
      `${system} asked to wait (HTTP ${error.status}, Retry-After) until ${until.toISOString()}; the cursor stays where it was.`,
    );
  }
  if (error.credentialsRefused)
    return userError(`${system} refused the credentials (${error.message}); check the connector's secrets and their env vars.`, {
      cause: error,
    });
  if (!error.retryable)
    return userError(`${system} refused the request: ${error.message}. The run stopped; check base_url and the options.`, { cause: error });
  return unavailable(`${system} did not answer (${error.message}); the run is retried from the last accepted cursor.`, error);
}
