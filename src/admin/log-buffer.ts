// The daemon's recent log lines, kept in memory for the admin log view: one more pino
// destination beside stdout (createLogger({ streams })), so the lines are the very same JSON.
// Bounded: the oldest lines fall out once `capacity` is reached.

export interface LogLine {
  /** Position in this process's log, 1-based and increasing: "after=<seq>" tails from there. */
  seq: number;
  time: string;
  level: string;
  msg: string;
  /** The line as logged (ids, err, context), secrets already redacted by the logger. */
  fields: Record<string, unknown>;
}

export interface LogQuery {
  /** Minimum level: trace < debug < info < warn < error < fatal. */
  level?: string;
  /** Lines of one feed, connector run, request or job. */
  feed?: string;
  run?: string;
  request?: string;
  job?: string;
  /** Case-insensitive text anywhere in the line. */
  q?: string;
  /** Only lines with seq greater than this (live tail). */
  after?: number;
  /** Newest matching lines, default 200, at most 2,000. */
  limit?: number;
}

export const levelRank: Record<string, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 };

/** The fields that name a feed, run, request and job in lines of the different areas. */
const ID_FIELDS = {
  feed: ['feedPk', 'feedId', 'feed_id', 'feed_pk'],
  run: ['runId', 'run_id', 'connectorRunId'],
  request: ['reqId', 'requestId', 'request_id'],
  job: ['jobId', 'job_id'],
} as const;

const matchesId = (fields: Record<string, unknown>, keys: readonly string[], wanted: string): boolean =>
  keys.some((k) => fields[k] !== undefined && fields[k] !== null && String(fields[k]) === wanted);

/** A kept line: the raw JSON, parsed the first time a query looks at it (writes stay cheap). */
interface Slot {
  seq: number;
  raw: string;
  line?: LogLine;
}

export class LogBuffer {
  readonly capacity: number;
  readonly #slots: (Slot | undefined)[];
  #next = 0;
  #seq = 0;

  /** capacity: lines kept; 5,000 lines of about 400 bytes is some 2 MB. */
  constructor(capacity = 5_000) {
    this.capacity = capacity;
    this.#slots = new Array<Slot | undefined>(capacity);
  }

  /** pino's destination interface: one or more newline-terminated JSON lines. */
  write(chunk: string): boolean {
    let from = 0;
    while (from < chunk.length) {
      let to = chunk.indexOf('\n', from);
      if (to === -1) to = chunk.length;
      if (to > from) {
        this.#seq += 1;
        this.#slots[this.#next] = { seq: this.#seq, raw: chunk.slice(from, to) };
        this.#next = (this.#next + 1) % this.capacity;
      }
      from = to + 1;
    }
    return true;
  }

  #line(slot: Slot): LogLine {
    if (slot.line !== undefined) return slot.line;
    let fields: Record<string, unknown>;
    try {
      fields = JSON.parse(slot.raw) as Record<string, unknown>;
    } catch {
      fields = { msg: slot.raw };
    }
    const { time, level, msg, ...rest } = fields;
    slot.line = {
      seq: slot.seq,
      time: typeof time === 'string' ? time : new Date(typeof time === 'number' ? time : Date.now()).toISOString(),
      level: typeof level === 'string' ? level : typeof level === 'number' ? levelName(level) : 'info',
      msg: typeof msg === 'string' ? msg : '',
      fields: rest,
    };
    slot.raw = '';
    return slot.line;
  }

  /** The latest sequence number (0 before any line). */
  get lastSeq(): number {
    return this.#seq;
  }

  /** Matching lines, oldest first (the newest `limit` of them). */
  query(query: LogQuery = {}): LogLine[] {
    const limit = Math.min(Math.max(query.limit ?? 200, 1), 2_000);
    const minRank = query.level === undefined ? 0 : (levelRank[query.level] ?? 0);
    const needle = query.q?.toLowerCase();
    const out: LogLine[] = [];
    // Walk newest to oldest, stop once enough are found or the tail point is reached.
    for (let i = 1; i <= this.capacity && out.length < limit; i++) {
      const slot = this.#slots[(this.#next - i + this.capacity) % this.capacity];
      if (slot === undefined) break;
      if (query.after !== undefined && slot.seq <= query.after) break;
      const line = this.#line(slot);
      if ((levelRank[line.level] ?? 0) < minRank) continue;
      if (query.feed !== undefined && !matchesId(line.fields, ID_FIELDS.feed, query.feed)) continue;
      if (query.run !== undefined && !matchesId(line.fields, ID_FIELDS.run, query.run)) continue;
      if (query.request !== undefined && !matchesId(line.fields, ID_FIELDS.request, query.request)) continue;
      if (query.job !== undefined && !matchesId(line.fields, ID_FIELDS.job, query.job)) continue;
      if (needle !== undefined && needle !== '' && !`${line.msg} ${JSON.stringify(line.fields)}`.toLowerCase().includes(needle)) continue;
      out.push(line);
    }
    return out.reverse();
  }
}

function levelName(n: number): string {
  for (const [name, rank] of Object.entries(levelRank)) if (rank === n) return name;
  return 'info';
}
