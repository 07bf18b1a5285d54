// Group commit: the writes of concurrent callers share one transaction, so one commit (one
// WAL flush, one round trip per statement) serves a whole batch. Each caller still gets its own
// result or error; nothing is acknowledged before its transaction has committed.
import { isTransient } from '../errors.ts';
import { inTransaction, type Db, type Trx } from './database.ts';

export interface GroupCommitOptions<I, O> {
  db: Db;
  /** Writes a batch in the given transaction; returns one result per input, in order. */
  write: (trx: Trx, inputs: I[]) => Promise<O[]>;
  /** Inputs per transaction at most. */
  maxBatch?: number;
  /** Transactions in flight at once: while they run, new inputs gather for the next. */
  lanes?: number;
}

interface Waiting<I, O> {
  input: I;
  resolve: (out: O) => void;
  reject: (error: unknown) => void;
}

export class GroupCommit<I, O> {
  readonly #o: Required<GroupCommitOptions<I, O>>;
  #queue: Waiting<I, O>[] = [];
  #running = 0;

  constructor(options: GroupCommitOptions<I, O>) {
    this.#o = { maxBatch: 500, lanes: 2, ...options };
  }

  /** Resolves once the input's transaction has committed. */
  submit(input: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.#queue.push({ input, resolve, reject });
      this.#pump();
    });
  }

  #pump(): void {
    while (this.#running < this.#o.lanes && this.#queue.length > 0) {
      const batch = this.#queue.splice(0, this.#o.maxBatch);
      this.#running++;
      void this.#flush(batch).finally(() => {
        this.#running--;
        this.#pump();
      });
    }
  }

  async #flush(batch: Waiting<I, O>[]): Promise<void> {
    try {
      const out = await this.#commit(batch.map((w) => w.input));
      batch.forEach((w, i) => w.resolve(out[i]!));
    } catch (error) {
      // The database being away fails everyone alike. Anything else may be one input's fault
      // (its shop deleted meanwhile, say): each is tried alone, so it fails only its caller.
      if (batch.length === 1 || isTransient(error)) {
        for (const w of batch) w.reject(error);
        return;
      }
      for (const w of batch) {
        try {
          w.resolve((await this.#commit([w.input]))[0]!);
        } catch (alone) {
          w.reject(alone);
        }
      }
    }
  }

  async #commit(inputs: I[]): Promise<O[]> {
    const out = await inTransaction(this.#o.db, (trx) => this.#o.write(trx, inputs));
    if (out.length !== inputs.length) throw new Error(`group commit: ${inputs.length} inputs gave ${out.length} results`);
    return out;
  }
}
