// Every process's log lines into Postgres (log_lines), so the dashboard shows the lines of all
// processes. One more pino destination beside stdout: write() only queues the raw JSON line;
// a timer stores the queue in batches, off the request path. Writes never block or fail a
// request: while the database is away (or before it is attached) lines wait in a bounded
// queue, and what does not fit, or a batch the database refused, is dropped and counted.
// Costs one INSERT and one bounded DELETE per batch; buys one log for every replica.
import type { Db } from '../db/database.ts';
import { insertLines, pruneLines, type NewLogLine } from './log-lines.repository.ts';

/** Lines the table keeps by default, across processes (some 50 MB with its indexes). */
export const DEFAULT_KEEP = 100_000;

export const LEVELS: Record<string, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 };

/** The fields that name a request, feed, connector run and job in lines of the different areas. */
const ID_FIELDS = {
  req_id: ['reqId', 'requestId', 'request_id'],
  feed: ['feedPk', 'feedId', 'feed_id', 'feed_pk'],
  run: ['runId', 'run_id', 'connectorRunId'],
  job: ['jobId', 'job_id'],
} as const;

const idOf = (fields: Record<string, unknown>, keys: readonly string[]): string | null => {
  for (const k of keys) {
    const v = fields[k];
    if (typeof v === 'string' || typeof v === 'number') return String(v);
  }
  return null;
};

/** JSON text without the escape of NUL (Postgres jsonb refuses it); an escaped backslash before "u0000" stays. */
const noNul = (json: string): string => json.replace(/(?<!\\)((?:\\\\)*)\\u0000/g, '$1');

/** One pino JSON line as a row; a line that is not JSON is kept as its message. */
export function toRow(raw: string): NewLogLine {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(raw) as Record<string, unknown>;
  } catch {
    parsed = { msg: raw };
  }
  const { time, level, msg, pid, hostname, ...fields } = parsed;
  const when = typeof time === 'string' || typeof time === 'number' ? new Date(time) : new Date();
  return {
    time: (Number.isNaN(when.getTime()) ? new Date() : when).toISOString(),
    level: typeof level === 'number' ? level : (LEVELS[String(level)] ?? 30),
    msg: typeof msg === 'string' ? msg.replaceAll('\0', '') : '',
    pid: typeof pid === 'number' ? pid : null,
    hostname: typeof hostname === 'string' ? hostname : null,
    req_id: idOf(fields, ID_FIELDS.req_id),
    feed: idOf(fields, ID_FIELDS.feed),
    run: idOf(fields, ID_FIELDS.run),
    job: idOf(fields, ID_FIELDS.job),
    fields: noNul(JSON.stringify(fields)),
  };
}

export interface LogSinkOptions {
  /** Lines waiting at most; beyond, the oldest quarter is dropped (default 10,000, some 4 MB). */
  maxPending?: number;
  /** Lines per INSERT (default 500). */
  batch?: number;
  /** How often the queue is stored, ms (default 1,000). */
  everyMs?: number;
  /** Lines the table keeps, across processes (default DEFAULT_KEEP). */
  keep?: number;
}

export class LogSink {
  readonly keep: number;
  readonly #maxPending: number;
  readonly #batch: number;
  readonly #everyMs: number;
  #pending: string[] = [];
  #db: Db | null = null;
  #timer: NodeJS.Timeout | null = null;
  #flushing: Promise<void> | null = null;
  #dropped = 0;

  constructor(options: LogSinkOptions = {}) {
    this.#maxPending = options.maxPending ?? 10_000;
    this.#batch = options.batch ?? 500;
    this.#everyMs = options.everyMs ?? 1_000;
    this.keep = options.keep ?? DEFAULT_KEEP;
  }

  /** Lines this process could not store (queue full, or the database refused a batch). */
  get dropped(): number {
    return this.#dropped;
  }

  /** pino's destination interface: one or more newline-terminated JSON lines. */
  write(chunk: string): boolean {
    for (const line of chunk.split('\n')) if (line !== '') this.#pending.push(line);
    if (this.#pending.length > this.#maxPending) {
      // The oldest quarter goes at once, so a long outage costs one copy per many lines.
      const over = this.#pending.length - this.#maxPending + Math.ceil(this.#maxPending / 4);
      this.#pending.splice(0, over);
      this.#dropped += over;
    }
    return true;
  }

  /** Starts storing lines (those logged before wait in the queue). */
  attach(db: Db): void {
    this.#db = db;
    this.#timer ??= setInterval(() => void this.flush(), this.#everyMs);
    this.#timer.unref();
  }

  /** Stores what is queued now (one flush at a time; a second call waits for the first). */
  flush(): Promise<void> {
    this.#flushing ??= this.#store().finally(() => {
      this.#flushing = null;
    });
    return this.#flushing;
  }

  async #store(): Promise<void> {
    while (this.#db !== null && this.#pending.length > 0) {
      const lines = this.#pending.splice(0, this.#batch);
      try {
        await insertLines(this.#db, lines.map(toRow));
      } catch {
        // Not logged: the line would come back here. The Logs page shows the count.
        this.#dropped += lines.length;
        return;
      }
      // The bound, kept by every writer after its batch (an index range delete, mostly empty).
      await pruneLines(this.#db, this.keep).catch(() => undefined);
    }
  }

  /** Stores what is left and stops (before the database closes). */
  async detach(): Promise<void> {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    await this.flush();
    await this.#flushing;
    this.#db = null;
  }
}
