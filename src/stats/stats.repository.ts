// Read-only aggregates over other areas' tables for the dashboard and /metrics (counts by
// state, throughput over time). Nothing here writes.
import { sql } from 'kysely';
import type { Executor } from '../db/database.ts';

/**
 * Feeds kept, by type and state, a done feed with item errors counted as `partial` (the
 * dashboard's and the metrics' word for it; the API's state stays done).
 */
export const feedCountsByTypeAndState = (db: Executor) =>
  db
    .selectFrom('feeds')
    .select([
      'type',
      sql<string>`case when state = 'done' and failed > 0 then 'partial' else state end`.as('state'),
      (eb) => eb.fn.countAll<number>().as('count'),
    ])
    .groupBy(sql`1, 2`)
    .execute();

const bucketOf = (column: string, stepMinutes: number) =>
  sql<Date>`to_timestamp(floor(extract(epoch from ${sql.ref(column)}) / ${stepMinutes * 60}) * ${stepMinutes * 60})`.as('bucket');

/** Feeds finished and their items, per `stepMinutes` bucket since `since` (buckets without any are absent). */
export const feedThroughput = (db: Executor, since: Date, stepMinutes: number) =>
  db
    .selectFrom('feeds')
    .select([
      bucketOf('finished_at', stepMinutes),
      (eb) => eb.fn.countAll<number>().as('feeds'),
      (eb) => eb.fn.coalesce(eb.fn.sum<number>('processed'), sql<number>`0`).as('items'),
      (eb) => eb.fn.coalesce(eb.fn.sum<number>('failed'), sql<number>`0`).as('failed'),
    ])
    .where('finished_at', '>=', since)
    .groupBy(sql`1`)
    .execute();

/** Log lines of every process at `minLevel` and above, per `stepMinutes` bucket since `since`. */
export const logLinesPerBucket = (db: Executor, minLevel: number, since: Date, stepMinutes: number) =>
  db
    .selectFrom('log_lines')
    .select([bucketOf('time', stepMinutes), (eb) => eb.fn.countAll<number>().as('lines')])
    .where('level', '>=', minLevel)
    .where('time', '>=', since)
    .groupBy(sql`1`)
    .execute();
