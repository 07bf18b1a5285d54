// Figures across areas for the dashboard's charts and the Prometheus gauges.
import type { Db } from '../db/database.ts';
import * as repo from './stats.repository.ts';

export interface Point {
  at: string;
  value: number;
}

/** pino's level of "error" (fatal is 60). */
const ERROR_LEVEL = 50;

/**
 * Per-minute rates of `fields`, one point per `stepMinutes` bucket from `since` to now (every
 * bucket present, zeros included, so charts keep their time axis).
 */
function perMinute<K extends string>(
  rows: ({ bucket: Date } & Record<K, unknown>)[],
  fields: K[],
  since: Date,
  stepMinutes: number,
): Record<K, Point[]> {
  const step = stepMinutes * 60_000;
  const start = Math.floor(since.getTime() / step) * step;
  const byBucket = new Map(rows.map((r) => [new Date(r.bucket).getTime(), r]));
  const out = Object.fromEntries(fields.map((f) => [f, [] as Point[]])) as Record<K, Point[]>;
  for (let t = start; t <= Date.now(); t += step) {
    const r = byBucket.get(t);
    const at = new Date(t).toISOString();
    for (const f of fields) out[f].push({ at, value: Number(r?.[f] ?? 0) / stepMinutes });
  }
  return out;
}

const bucketStart = (since: Date, stepMinutes: number): Date =>
  new Date(Math.floor(since.getTime() / (stepMinutes * 60_000)) * stepMinutes * 60_000);

export class StatsService {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  async feedCounts(): Promise<{ type: string; state: string; count: number }[]> {
    return (await repo.feedCountsByTypeAndState(this.#db)).map((r) => ({ type: r.type, state: r.state, count: Number(r.count) }));
  }

  /** Feeds finished, items processed and items failed per minute, in buckets of `stepMinutes` since `since`. */
  async feedThroughput(since: Date, stepMinutes: number): Promise<{ feeds: Point[]; items: Point[]; failed: Point[] }> {
    const rows = await repo.feedThroughput(this.#db, bucketStart(since, stepMinutes), stepMinutes);
    return perMinute(rows, ['feeds', 'items', 'failed'], since, stepMinutes);
  }

  /** Error and fatal log lines of every process per minute, in buckets of `stepMinutes` since `since`. */
  async errorsPerMinute(since: Date, stepMinutes: number): Promise<Point[]> {
    const rows = await repo.logLinesPerBucket(this.#db, ERROR_LEVEL, bucketStart(since, stepMinutes), stepMinutes);
    return perMinute(rows, ['lines'], since, stepMinutes).lines;
  }
}
