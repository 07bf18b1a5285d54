// The polling engine the tracking adapters share: select due shipments in batches (oldest check
// first), check them with bounded concurrency under the connector's rate limit, store what the
// carrier said through the tracking service, and stop starting checks when the run's time is
// up (the rest is first in line next tick). A check the carrier refuses (4xx) or that keeps
// failing is recorded against its shipment; the run goes on with the others. Two answers stop
// the run at once (no call starts after them; calls in flight finish): a Retry-After
// longer than a check waits (the connector is throttled until then), and an API that
// misbehaves for every call (a refused key, an answer past the cap, a redirect elsewhere).
import pLimit from 'p-limit';
import type { TrackedShipment, TrackingResult } from '../../../src/tracking/tracking.schemas.ts';
import { rateLimiter } from '../../../src/system/rate-limit.ts';
import { MAX_THROTTLE_MS, throttled, userError, type ConnectorContext } from '../contract.ts';
import { CarrierError, carrierGet, type CarrierResponse } from './http.ts';
import type { PollingOptions } from './options.ts';

/** What an adapter does for one shipment: call its API (through `get`) and map the answer. */
export interface TrackingAdapter {
  track(
    shipment: TrackedShipment,
    get: (url: string, headers: Record<string, string>) => Promise<CarrierResponse>,
  ): Promise<TrackingResult>;
}

/**
 * Runs fn over items with at most `limit` at once. After a failure no new item starts; the
 * ones in flight finish, then the first error is thrown (nothing keeps running behind the run).
 */
export async function eachLimited<T>(items: readonly T[], concurrency: number, fn: (item: T) => Promise<void>): Promise<void> {
  let failure: { error: unknown } | null = null;
  await pLimit(concurrency).map(items, async (item) => {
    if (failure !== null) return;
    try {
      await fn(item);
    } catch (error) {
      failure ??= { error };
    }
  });
  if (failure !== null) throw (failure as { error: unknown }).error;
}

export async function pollShipments(ctx: ConnectorContext<PollingOptions>, adapter: TrackingAdapter): Promise<void> {
  const o = ctx.options;
  const tracking = ctx.tracking;
  const started = new Date();
  const deadline = started.getTime() + o.max_run_seconds * 1000;
  // Starts spaced (1000 + jitter) / rate ms apart: any second at the carrier then holds at most
  // `rate` arrivals while a request's way there varies by less than the jitter.
  const limiter = rateLimiter({ capacity: 1, everyMs: (1000 + o.rate_jitter_ms) / o.requests_per_second });
  // Aborted when the run must stop at once: no call starts after it (those in flight finish).
  const stop = new AbortController();
  const waitSignal = AbortSignal.any([ctx.signal, stop.signal]);
  let stoppedBy: CarrierError | null = null;
  let throttle: { until: number; error: CarrierError } | null = null;
  const open = (): boolean => Date.now() < deadline && !waitSignal.aborted;

  const checkOne = async (s: TrackedShipment): Promise<void> => {
    if (!open()) return ctx.report.count('deferred');
    const get = (url: string, headers: Record<string, string>) =>
      carrierGet(url, headers, {
        limiter,
        timeoutMs: o.timeout_ms,
        retries: o.retries,
        retryMinMs: o.retry_min_ms,
        retryMaxMs: o.retry_max_ms,
        http: ctx.http,
        signal: ctx.signal,
        waitSignal,
        carrier: s.carrier.toLowerCase(),
        maxBytes: o.max_response_bytes,
      });
    let result: TrackingResult;
    try {
      result = await adapter.track(s, get);
    } catch (error) {
      if (!(error instanceof CarrierError)) {
        // Not started because another check stopped the run: this shipment waits for the next one.
        if (stop.signal.aborted && !ctx.signal.aborted) return ctx.report.count('deferred');
        throw error;
      }
      if (error.retryAfterMs !== null && error.retryAfterMs > o.retry_max_ms) {
        // Not this shipment's fault: nothing is recorded against it.
        const until = Date.now() + Math.min(error.retryAfterMs, MAX_THROTTLE_MS);
        if (throttle === null || until > throttle.until) throttle = { until, error };
        ctx.log.warn(
          { shipment: s.id, status: error.status, until: new Date(until).toISOString() },
          'the carrier asked to wait (Retry-After): the connector is throttled',
        );
        ctx.report.count('deferred');
        stop.abort();
        return;
      }
      ctx.report.count(error.retryable ? 'checks_failed' : 'checks_refused');
      ctx.log.warn({ shipment: s.id, trackingCode: s.trackingCode, status: error.status, err: error.message }, 'tracking check failed');
      await tracking.recordError(s.id, error.message);
      if (error.stopsRun) {
        stoppedBy ??= error;
        stop.abort();
      }
      return;
    }
    const outcome = await tracking.record(s, result, { followDeliveredDays: o.follow_delivered_days });
    ctx.report.count('checked');
    if (outcome.newEvents > 0) ctx.report.count('events_new', outcome.newEvents);
    if (outcome.outOfOrder > 0) {
      ctx.report.count('events_out_of_order', outcome.outOfOrder);
      ctx.log.warn(
        { shipment: s.id, trackingCode: s.trackingCode, events: outcome.outOfOrder },
        'the carrier dated events before events they follow; kept as dated, with a warning',
      );
    }
    if (outcome.applied) ctx.report.count(`action_${outcome.action}`);
    if (outcome.refused) {
      ctx.report.count('actions_refused');
      ctx.log.warn(
        { shipment: s.id, action: outcome.action, status: result.status },
        'order action refused by the state table; recorded as a tracking event',
      );
    }
  };

  while (open()) {
    const batch = await tracking.due({
      carriers: o.carriers,
      shopPk: ctx.shopPk,
      minIntervalSeconds: o.min_interval_seconds,
      checkedBefore: started,
      followDeliveredDays: o.follow_delivered_days,
      limit: o.batch_size,
    });
    if (batch.length === 0) break;
    await eachLimited(batch, o.concurrency, checkOne);
    if (batch.length < o.batch_size) break;
  }
  const stopped = stoppedBy as CarrierError | null;
  if (stopped !== null) {
    // Not retried: a wrong key or a misbehaving API stays so until someone fixes the configuration.
    if (stopped.credentialsRefused)
      throw userError(`The carrier API refused the credentials (${stopped.message}); check the connector's api_key_env.`);
    const hint = stopped.refusedBy === 'too_large' ? 'raise max_response_bytes if its answers are really that large' : 'check base_url';
    throw userError(`The carrier API's answer was refused: ${stopped.message}. The run stopped; ${hint}.`);
  }
  const wait = throttle as { until: number; error: CarrierError } | null;
  if (wait !== null) {
    const seconds = Math.ceil((wait.until - Date.now()) / 1000);
    throw throttled(
      new Date(wait.until),
      `The carrier answered ${wait.error.message} with Retry-After: no call for ${seconds} s, until ${new Date(wait.until).toISOString()}.`,
    );
  }
}
