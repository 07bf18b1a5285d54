// Figures across areas for the dashboard's charts and the Prometheus gauges.
import type { Db } from '../db/database.ts';
import * as repo from './stats.repository.ts';

export interface Point {
  at: string;
  value: number;
}

export class StatsService {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  async feedCounts(): Promise<{ type: string; state: string; count: number }[]> {
    return (await repo.feedCountsByTypeAndState(this.#db)).map((r) => ({ type: r.type, state: r.state, count: Number(r.count) }));
  }

  /**
   * Feeds finished, items processed and items failed per minute, in buckets of `stepMinutes`
   * from `since` to now (every bucket present, zeros included, so charts keep their time axis).
   */
  async feedThroughput(since: Date, stepMinutes: number): Promise<{ feeds: Point[]; items: Point[]; failed: Point[] }> {
    const step = stepMinutes * 60_000;
    const start = Math.floor(since.getTime() / step) * step;
    const rows = await repo.feedThroughput(this.#db, new Date(start), stepMinutes);
    const byBucket = new Map(rows.map((r) => [new Date(r.bucket).getTime(), r]));
    const feeds: Point[] = [];
    const items: Point[] = [];
    const failed: Point[] = [];
    for (let t = start; t <= Date.now(); t += step) {
      const r = byBucket.get(t);
      const at = new Date(t).toISOString();
      feeds.push({ at, value: Number(r?.feeds ?? 0) / stepMinutes });
      items.push({ at, value: Number(r?.items ?? 0) / stepMinutes });
      failed.push({ at, value: Number(r?.failed ?? 0) / stepMinutes });
    }
    return { feeds, items, failed };
  }
}
