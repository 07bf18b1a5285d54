// Kysely over pg. `Db` is what services pass to repositories: the pool or a transaction.
import pg from 'pg';
import { Kysely, PostgresDialect, type Transaction } from 'kysely';
import type { ShopTables } from './tables/shops.ts';
import type { CatalogTables } from './tables/catalog.ts';
import type { FeedTables } from './tables/feeds.ts';
import type { OrderTables } from './tables/orders.ts';
import type { ConnectorTables } from './tables/connectors.ts';
import type { PlatformTables } from './tables/platform.ts';
import type { TrackingTables } from './tables/tracking.ts';

export interface Database extends ShopTables, CatalogTables, FeedTables, OrderTables, ConnectorTables, PlatformTables, TrackingTables {}

export type Db = Kysely<Database>;
export type Trx = Transaction<Database>;
/** A repository function's first argument: the pool, or the transaction it must join. */
export type Executor = Db | Trx;

// int8 as a JS number: ids and order_pks stay below 2^53. numeric as a number: prices.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number(v));
// `timestamp` (no zone) carries the catalog's wall-clock form YYYY-MM-DDThh:mm:ss verbatim.
pg.types.setTypeParser(pg.types.builtins.TIMESTAMP, (v) => v.replace(' ', 'T').slice(0, 19));

export interface DbOptions {
  connectionString: string;
  max?: number;
  applicationName?: string;
}

export function createPool(options: DbOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.max ?? 10,
    application_name: options.applicationName ?? 'waybill',
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
  });
  // A dropped idle connection (database restart) must not crash the process; the pool
  // replaces it on next use, and the query that needed it fails as transient.
  pool.on('error', () => undefined);
  // A client checked out between two statements (a transaction awaiting its next query) gets
  // the "connection terminated" as an 'error' event; unheard, it would crash the process. The
  // pending query fails on its own, and the pool drops the broken client on release.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

export function createDb(options: DbOptions): { db: Db; pool: pg.Pool } {
  const pool = createPool(options);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { db, pool };
}

/** Runs fn in one transaction: every write and every job it enqueues commit together. */
export function inTransaction<T>(db: Executor, fn: (trx: Trx) => Promise<T>): Promise<T> {
  if (db.isTransaction) return fn(db as Trx);
  return (db as Db).transaction().execute(fn);
}
