// Requests per second for one connector. Each start waits until 1/rate (plus a 1% margin for
// the network's jitter between our clock and the carrier's) has passed since the previous
// ACTUAL start: after an event-loop stall the requests do not burst to catch up, so no window
// of one second ever holds more than `rate` starts as the carrier sees them. A 429's
// Retry-After pauses every request of the connector (the carrier's limit is per API key).
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

export interface RateLimiter {
  /** Resolves when the caller may start one request. */
  take(signal?: AbortSignal): Promise<void>;
  /** No request starts before this instant (epoch ms). */
  pauseUntil(at: number): void;
}

export function rateLimiter(perSecond: number, now: () => number = () => performance.timeOrigin + performance.now()): RateLimiter {
  const spacing = (1000 / perSecond) * 1.01;
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
