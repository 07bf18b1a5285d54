// Requests per second for one connector. Starts are spaced (1000 + jitter) / rate ms apart,
// counted from the previous ACTUAL start (after an event-loop stall requests do not burst to
// catch up). So any window of 1000 + jitter ms holds at most `rate` starts here, and any second
// at the carrier at most `rate` arrivals as long as a request's way from our start to the
// carrier's clock varies by less than `jitter` ms (a busy event loop delays the actual send).
// A 429's Retry-After pauses every request of the connector (the carrier's limit is per key).
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

export interface RateLimiter {
  /** Resolves when the caller may start one request. */
  take(signal?: AbortSignal): Promise<void>;
  /** No request starts before this instant (epoch ms). */
  pauseUntil(at: number): void;
}

export function rateLimiter(perSecond: number, jitterMs = 100, now: () => number = () => performance.timeOrigin + performance.now()): RateLimiter {
  const spacing = (1000 + jitterMs) / perSecond;
  let last = -Infinity;
  let pausedUntil = -Infinity;
  return {
    async take(signal) {
      // Several callers may wake for the same slot: the first takes it, the others wait again.
      for (;;) {
        const t = now();
        const at = Math.max(last + spacing, pausedUntil);
        if (t >= at) {
          last = t;
          return;
        }
        await sleep(Math.ceil(at - t), undefined, { signal });
      }
    },
    pauseUntil(at) {
      pausedUntil = Math.max(pausedUntil, at);
    },
  };
}
