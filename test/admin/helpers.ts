// Shared by the admin tests.

export { responsive } from '../helpers/shedding.ts';

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
