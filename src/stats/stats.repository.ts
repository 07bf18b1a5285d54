// Read-only aggregates over other areas' tables for the dashboard and /metrics (counts by
// state, throughput over time). Nothing here writes.
import { sql } from 'kysely';
import type { Executor } from '../db/database.ts';

export const feedCountsByTypeAndState = (db: Executor) =>
  db.selectFrom('feeds').select(['type', 'state', (eb) => eb.fn.countAll<number>().as('count')]).groupBy(['type', 'state']).execute();

/** Feeds finished and their items, per `stepMinutes` bucket since `since` (buckets without any are absent). */
export const feedThroughput = (db: Executor, since: Date, stepMinutes: number) =>
  db.selectFrom('feeds')
    .select([
      sql<Date>`to_timestamp(floor(extract(epoch from finished_at) / ${stepMinutes * 60}) * ${stepMinutes * 60})`.as('bucket'),
      (eb) => eb.fn.countAll<number>().as('feeds'),
      (eb) => eb.fn.coalesce(eb.fn.sum<number>('processed'), sql<number>`0`).as('items'),
      (eb) => eb.fn.coalesce(eb.fn.sum<number>('failed'), sql<number>`0`).as('failed'),
    ])
    .where('finished_at', '>=', since)
    .groupBy(sql`1`)
    .execute();
