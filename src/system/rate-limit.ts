// A rate limiter: a token bucket per key. Each use builds its own: API writes per key (the auth
// plugin: WAYBILL_RATE_LIMIT a minute, that many at once allowed) and each tracking connector's
// requests to its carrier (no burst: capacity 1 spaces starts evenly). Tokens refill
// continuously from the previous ACTUAL take, so after an event-loop stall requests do not
// burst to catch up.
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

export interface RateLimiter {
  /** Takes a token of `key` when there is one (0), else returns the ms until there will be. */
  tryTake(key?: string): number;
  /** Resolves once the caller took a token of `key`, waiting as long as needed. */
  take(signal?: AbortSignal, key?: string): Promise<void>;
  /** No token is handed out before this instant (epoch ms): a remote 429's Retry-After. */
  pauseUntil(at: number): void;
}

export interface RateLimiterOptions {
  /** Tokens a key holds at most (a burst): 1 spaces every take `everyMs` apart. */
  capacity: number;
  /** One token comes back every this many ms. */
  everyMs: number;
  /** The clock, epoch ms (tests). */
  now?: () => number;
}

/** Keys remembered before the oldest are forgotten (a forgotten key starts with a full bucket). */
const MAX_KEYS = 100_000;

export function rateLimiter({
  capacity,
  everyMs,
  now = () => performance.timeOrigin + performance.now(),
}: RateLimiterOptions): RateLimiter {
  const buckets = new Map<string, { tokens: number; at: number }>();
  let pausedUntil = -Infinity;
  const tryTake = (key = ''): number => {
    const t = now();
    if (t < pausedUntil) return pausedUntil - t;
    const b = buckets.get(key) ?? { tokens: capacity, at: t };
    b.tokens = Math.min(capacity, b.tokens + (t - b.at) / everyMs);
    b.at = t;
    if (!buckets.has(key)) {
      if (buckets.size >= MAX_KEYS) buckets.clear();
      buckets.set(key, b);
    }
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return (1 - b.tokens) * everyMs;
  };
  return {
    tryTake,
    async take(signal, key) {
      // Several callers may wake for the same token: the first takes it, the others wait again.
      for (let wait = tryTake(key); wait > 0; wait = tryTake(key)) await sleep(Math.ceil(wait), undefined, { signal });
    },
    pauseUntil(at) {
      pausedUntil = Math.max(pausedUntil, at);
    },
  };
}
