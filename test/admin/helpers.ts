// Shared by the admin tests.
import type { TestDaemon } from '../helpers/daemon.ts';

/**
 * Waits until the API is not shedding load: on a busy machine start-up can stall the event loop
 * past the overload threshold, and the first requests then answer 503 for a moment.
 */
export async function responsive(app: NonNullable<TestDaemon['app']>): Promise<void> {
  const deadline = Date.now() + 20_000;
  while ((await app.inject('/healthz')).statusCode === 503 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
}

/** Polls fn until it returns something other than undefined. */
export async function until<T>(fn: () => Promise<T | undefined>, what: string, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
