// Requests per second for one connector: request starts are spaced 1/rate apart on a fixed
// grid, so no window of one second ever holds more than `rate` starts. A 429's Retry-After
// pauses every request of the connector (the carrier's limit is per API key, not per parcel).
import { setTimeout as sleep } from 'node:timers/promises';

export interface RateLimiter {
  /** Resolves when the caller may start one request. */
  take(signal?: AbortSignal): Promise<void>;
  /** No request starts before this instant (epoch ms). */
  pauseUntil(at: number): void;
}

export function rateLimiter(perSecond: number, now: () => number = Date.now): RateLimiter {
  const spacing = 1000 / perSecond;
  let next = 0;
  let pausedUntil = 0;
  return {
    async take(signal) {
      const at = Math.max(now(), next, pausedUntil);
      next = at + spacing;
      // Timers may fire a millisecond early: wait until the slot has really come.
      for (let wait = at - now(); wait > 0; wait = at - now()) await sleep(Math.ceil(wait), undefined, { signal });
    },
    pauseUntil(at) {
      pausedUntil = Math.max(pausedUntil, at);
    },
  };
}
