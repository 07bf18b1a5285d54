// At most `max` calls of run() at once; the others wait their turn, first come first served.
export class Limiter {
  readonly #max: number;
  #active = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(max: number) {
    if (!Number.isInteger(max) || max < 1) throw new Error(`Limiter: max must be a positive integer, got ${max}`);
    this.#max = max;
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.#active >= this.#max) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    else this.#active++;
    try {
      return await fn();
    } finally {
      // Hand the slot straight to the next waiter (the count stays), or free it.
      const next = this.#waiting.shift();
      if (next !== undefined) next();
      else this.#active--;
    }
  }
}
