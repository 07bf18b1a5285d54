// The connector's rate limiter: concurrent callers get starts spaced (1000 + jitter) / rate
// apart on the real clock, so no second holds more than `rate`; a pause holds everyone.
import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { rateLimiter } from './rate-limit.ts';

const clock = () => performance.timeOrigin + performance.now();

describe('rateLimiter', () => {
  it('spaces concurrent starts: 30 callers at 50/s (jitter 0) take 580 ms at least, gaps of about 20 ms', async () => {
    const limiter = rateLimiter(50, 0);
    const starts: number[] = [];
    const t0 = clock();
    await Promise.all(Array.from({ length: 30 }, async () => {
      await limiter.take();
      starts.push(clock());
    }));
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
