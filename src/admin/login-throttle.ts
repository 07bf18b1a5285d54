// One throttle of wrong admin tokens per client address, whichever way the token comes: the
// login form, `Authorization: Bearer` on /admin/api/*, or a dashboard cookie not signed by this
// daemon. After LOGIN_ATTEMPTS failures within LOGIN_WINDOW_SECONDS (from the first), every
// presentation of a token from that address answers 429 until the window ends, the right token
// included. Kept in this process's memory: check and count run without I/O between them, so
// parallel guesses cannot slip past the limit.

/** Failed attempts allowed per client address within LOGIN_WINDOW_SECONDS; the next gets 429. */
export const LOGIN_ATTEMPTS = 10;
/** The throttle's window, seconds (15 minutes, from the first failure). */
export const LOGIN_WINDOW_SECONDS = 15 * 60;
/** Addresses remembered at most; past it the oldest window is forgotten. */
const MAX_ADDRESSES = 100_000;

export class AdminLoginThrottle {
  readonly #failures = new Map<string, { count: number; until: number }>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** Seconds `address` must wait before it may present a token again; 0: it may now. */
  waitSeconds(address: string): number {
    const f = this.#failures.get(address);
    if (f === undefined) return 0;
    const left = f.until - this.#now();
    if (left <= 0) {
      this.#failures.delete(address);
      return 0;
    }
    return f.count >= LOGIN_ATTEMPTS ? Math.max(1, Math.ceil(left / 1000)) : 0;
  }

  /** Counts one wrong token from `address`. */
  fail(address: string): void {
    const now = this.#now();
    const f = this.#failures.get(address);
    if (f !== undefined && f.until > now) {
      f.count++;
      return;
    }
    if (f === undefined && this.#failures.size >= MAX_ADDRESSES) this.#failures.delete(this.#failures.keys().next().value!);
    this.#failures.set(address, { count: 1, until: now + LOGIN_WINDOW_SECONDS * 1000 });
  }
}
