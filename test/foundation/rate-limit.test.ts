// The rate limiter of API writes and of connectors' requests. A connector's (capacity 1):
// concurrent callers get starts spaced (1000 + jitter) / rate apart on the real clock, so no
// second holds more than `rate`; a pause holds everyone. API writes: a minute's worth at once,
// then one per 60/N s, each key counted apart.
import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { rateLimiter as bucket } from '../../src/system/rate-limit.ts';

/** A connector's limiter as the tracking engine builds it. */
const rateLimiter = (perSecond: number, jitterMs: number) => bucket({ capacity: 1, everyMs: (1000 + jitterMs) / perSecond });

const clock = () => performance.timeOrigin + performance.now();

describe('rateLimiter of a connector', () => {
  it('spaces concurrent starts: 30 callers at 50/s (jitter 0) take 580 ms at least, gaps of about 20 ms', async () => {
    const limiter = rateLimiter(50, 0);
    const starts: number[] = [];
    const t0 = clock();
    await Promise.all(
      Array.from({ length: 30 }, async () => {
        await limiter.take();
        starts.push(clock());
      }),
    );
    starts.sort((a, b) => a - b);
    expect(starts.at(-1)! - t0).toBeGreaterThanOrEqual(579);
    for (let i = 1; i < starts.length; i++) expect(starts[i]! - starts[i - 1]!).toBeGreaterThanOrEqual(15);
  });

  it('the jitter allowance widens the spacing: 5/s with 100 ms -> 220 ms apart', async () => {
    const limiter = rateLimiter(5, 100);
    await limiter.take();
    const a = clock();
    await limiter.take();
    expect(clock() - a).toBeGreaterThanOrEqual(219);
  });

  it('pauseUntil holds every caller (a 429 with Retry-After)', async () => {
    const limiter = rateLimiter(1_000, 0);
    await limiter.take();
    limiter.pauseUntil(Date.now() + 150);
    const a = clock();
    await Promise.all([limiter.take(), limiter.take()]);
    expect(clock() - a).toBeGreaterThanOrEqual(149);
  });
});

describe('rateLimiter of API writes', () => {
  it("lets a minute's writes through, then says how long to wait, and refills", () => {
    let t = 1_000_000;
    const limit = bucket({ capacity: 3, everyMs: 20_000, now: () => t });
    expect([limit.tryTake('a'), limit.tryTake('a'), limit.tryTake('a')]).toEqual([0, 0, 0]);
    expect(limit.tryTake('a')).toBe(20_000); // one token per 20 s at 3 a minute
    expect(limit.tryTake('b')).toBe(0); // keys are counted apart
    t += 20_000;
    expect(limit.tryTake('a')).toBe(0);
  });
});
