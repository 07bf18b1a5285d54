// The log lines of every process as the dashboard reads them: filtered and tailed.
import type { Db } from '../db/database.ts';
import * as repo from './log-lines.repository.ts';
import { DEFAULT_KEEP, LEVELS } from './log-sink.ts';

export interface LogLine {
  /** The line's id in log_lines, increasing: "after=<seq>" tails from there. */
  seq: number;
  time: string;
  level: string;
  msg: string;
  /** The line as logged (ids, err, context, pid, hostname), secrets already redacted. */
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
  /** Only lines with seq smaller than this (an older page). */
  before?: number;
  /** Newest matching lines, default 200, at most 2,000. */
  limit?: number;
}

const levelName = (n: number): string => Object.entries(LEVELS).find(([, rank]) => rank === n)?.[0] ?? String(n);

export class LogLineService {
  readonly #db: Db;
  readonly #sink: { readonly keep: number; readonly dropped: number } | undefined;

  /** sink: this process's LogSink (how many lines the table keeps, how many it dropped). */
  constructor(db: Db, sink?: { readonly keep: number; readonly dropped: number }) {
    this.#db = db;
    this.#sink = sink;
  }

  /** Lines the table keeps, across processes. */
  get keep(): number {
    return this.#sink?.keep ?? DEFAULT_KEEP;
  }

  /** Lines this process could not store. */
  get dropped(): number {
    return this.#sink?.dropped ?? 0;
  }

  /** Matching lines, oldest first (the newest `limit` of them), and the last seq seen. */
  async query(q: LogQuery = {}): Promise<{ lines: LogLine[]; last_seq: number }> {
    const rows = await repo.queryLines(this.#db, {
      level: q.level === undefined ? undefined : LEVELS[q.level],
      request: q.request,
      feed: q.feed,
      run: q.run,
      job: q.job,
      text: q.q,
      after: q.after,
      before: q.before,
      limit: Math.min(Math.max(q.limit ?? 200, 1), 2_000),
    });
    const lines = rows.reverse().map((r) => ({
      seq: r.id,
      time: new Date(r.time).toISOString(),
      level: levelName(r.level),
      msg: r.msg,
      fields: { ...r.fields, ...(r.pid === null ? {} : { pid: r.pid }), ...(r.hostname === null ? {} : { hostname: r.hostname }) },
    }));
    const last = lines.at(-1)?.seq ?? q.after ?? (await repo.lastLineId(this.#db));
    return { lines, last_seq: Math.max(last, q.after ?? 0) };
  }
}
