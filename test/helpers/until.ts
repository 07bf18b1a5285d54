// Waiting for a condition, never for a fixed time: one helper for every test and scenario.

/**
 * Polls `check` every `every` ms until it returns something other than null, undefined or
 * false, and returns that. A check that throws counts as "not yet" (a daemon still starting
 * refuses connections); past `ms` it fails naming `what`, with the last error if there was one.
 */
export async function until<T>(
  what: string,
  check: () => Promise<T | null | undefined | false> | T | null | undefined | false,
  ms = 10_000,
  every = 25,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    let last: unknown;
    try {
      const v = await check();
      if (v !== null && v !== undefined && v !== false) return v;
    } catch (error) {
      last = error;
    }
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}${last === undefined ? '' : `: ${String(last)}`}`);
    await new Promise((r) => setTimeout(r, every));
  }
}
