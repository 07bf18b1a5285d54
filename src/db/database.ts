// Kysely over pg. `Db` is what services pass to repositories: the pool or a transaction.
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import pg from 'pg';
import { CompiledQuery, Kysely, PostgresDialect, sql, type Transaction } from 'kysely';
import type { ShopTables } from '../shops/shops.tables.ts';
import type { MarketplaceTables } from '../marketplaces/marketplaces.tables.ts';
import type { CatalogTables } from '../catalog/catalog.tables.ts';
import type { FeedTables } from '../feeds/feeds.tables.ts';
import type { OrderTables } from '../orders/orders.tables.ts';
import type { ConnectorTables } from '../connectors/host/connectors.tables.ts';
import type { IdempotencyTables } from '../idempotency/idempotency.tables.ts';
import type { AdminSessionTables } from '../admin-sessions/admin-sessions.tables.ts';
import type { TrackingTables } from '../tracking/tracking.tables.ts';
import type { WebhookTables } from '../webhooks/webhooks.tables.ts';
import type { LogTables } from '../logs/logs.tables.ts';

export interface Database
  extends
    ShopTables,
    MarketplaceTables,
    CatalogTables,
    FeedTables,
    OrderTables,
    ConnectorTables,
    IdempotencyTables,
    AdminSessionTables,
    TrackingTables,
    WebhookTables,
    LogTables {}

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
  /**
   * The bound on every database call, ms (WAYBILL_DB_TIMEOUT_MS): waiting for a pool
   * connection, connecting, and each statement (server side: statement_timeout; client side:
   * pg's query_timeout, which also covers a server that stopped answering). Default 5 s.
   */
  timeoutMs?: number;
}

export const DEFAULT_DB_TIMEOUT_MS = 5_000;

/**
 * The server's share of a time limit: Postgres cancels a statement at 80% of it (the
 * connection stays usable, the error says "canceling statement due to statement timeout"); the
 * client gives up at the full limit only when the server does not answer at all (its
 * connection is then dropped).
 */
const serverShare = (ms: number): number => Math.max(1, Math.round(ms * 0.8));

/** The time limit of the long work running in this async context (see withTimeLimit). */
const longWork = new AsyncLocalStorage<number>();

/**
 * Runs fn with its own time limit per statement instead of the pool's (WAYBILL_DB_TIMEOUT_MS):
 * for work known to be long (applying a feed's chunk of 1,000 items). Client side, every query
 * fn makes gets `ms` as its read time-out; server side, a transaction of fn must call
 * limitStatements(trx) first (statement_timeout is a session setting).
 */
export function withTimeLimit<T>(ms: number, fn: () => Promise<T>): Promise<T> {
  return longWork.run(ms, fn);
}

/** Sets this transaction's statement_timeout to the limit of withTimeLimit (no-op outside it). */
export async function limitStatements(trx: Trx): Promise<void> {
  const ms = longWork.getStore();
  if (ms !== undefined) await sql`select set_config('statement_timeout', ${String(serverShare(ms))}, true)`.execute(trx);
}

/**
 * SQL texts that run as named prepared statements (text -> statement name): each connection
 * parses and plans them once, then only binds and executes (Postgres keeps a generic plan
 * once it costs no more than the custom ones). For the few hot statements whose planning
 * costs more than running them (docs/benchmarks.md): a feed's accept statement and pg-boss's
 * job insert. A prepared statement's result must name its columns
 * (not `*`): a migration adding a column would otherwise change its result type. Bounded:
 * every connection keeps each statement it ran.
 */
const preparedNames = new Map<string, string>();
const MAX_PREPARED = 50;

/**
 * A pg client that runs the texts of preparedNames as named prepared statements, and gives up
 * its connection when a query ran out of time on the client side (the server did not answer:
 * a later answer must not reach the next query on this connection; the pool drops it).
 */
class PreparingClient extends pg.Client {
  // pg's overloads (text, config object, submittable; callback or promise) stay as they are;
  // only a plain text that was marked prepared gets a name, and a query of long work its limit.
  override query(...args: unknown[]): never {
    const [text, values, callback] = args;
    const call = super.query as (...a: unknown[]) => never;
    if (typeof text !== 'string' || typeof values === 'function') return call.apply(this, args);
    const name = preparedNames.get(text);
    const limit = longWork.getStore();
    if (name === undefined && limit === undefined) return this.#timed(call.apply(this, args));
    return this.#timed(
      call.call(
        this,
        { ...(name === undefined ? {} : { name }), text, values, ...(limit === undefined ? {} : { query_timeout: limit }) },
        callback,
      ),
    );
  }

  #timed(result: never): never {
    const p = result as unknown;
    if (p instanceof Promise) {
      p.catch((error: unknown) => {
        if (error instanceof Error && error.message === 'Query read timeout') {
          (this as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
        }
      });
    }
    return result;
  }
}

/**
 * Runs a statement as a named prepared statement (see preparedNames). `text` must be one of a
 * fixed few, a constant: values go in `parameters`, never into the text.
 */
export async function queryPrepared<R>(db: Executor, text: string, parameters: readonly unknown[]): Promise<R[]> {
  if (!preparedNames.has(text) && preparedNames.size < MAX_PREPARED) {
    preparedNames.set(text, `wb_${createHash('sha256').update(text).digest('hex').slice(0, 32)}`);
  }
  return (await db.executeQuery<R>(CompiledQuery.raw(text, [...parameters]))).rows;
}

export function createPool(options: DbOptions): pg.Pool {
  const timeout = options.timeoutMs ?? DEFAULT_DB_TIMEOUT_MS;
  const pool = new pg.Pool({
    Client: PreparingClient,
    connectionString: options.connectionString,
    max: options.max ?? 10,
    // With this process's pid: the embedded server's last user tells its own connections from
    // another process's (embedded-postgres.ts, release).
    application_name: `${options.applicationName ?? 'waybill'}/${process.pid}`,
    // Waiting for a free connection, and opening one.
    connectionTimeoutMillis: timeout,
    // Each statement: cancelled by the server, and given up by the client when the server does
    // not answer at all (stopped, frozen, network gone).
    statement_timeout: serverShare(timeout),
    query_timeout: timeout,
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

/**
 * Runs fn inside a savepoint of `trx`: when fn fails, what it wrote is rolled back, the
 * transaction stays usable, and the error is rethrown.
 */
export async function inSavepoint<T>(trx: Trx, fn: () => Promise<T>): Promise<T> {
  await sql`savepoint wb_part`.execute(trx);
  try {
    const result = await fn();
    await sql`release savepoint wb_part`.execute(trx);
    return result;
  } catch (error) {
    // Rolled back and released: a savepoint left behind would stay a subtransaction until the
    // commit. A failed rollback leaves the transaction aborted: its next statement fails.
    await sql`rollback to savepoint wb_part`
      .execute(trx)
      .then(() => sql`release savepoint wb_part`.execute(trx))
      .catch(() => undefined);
    throw error;
  }
}

/** Runs fn in one transaction: every write and every job it enqueues commit together. */
export function inTransaction<T>(db: Executor, fn: (trx: Trx) => Promise<T>): Promise<T> {
  if (db.isTransaction) return fn(db as Trx);
  return (db as Db).transaction().execute(fn);
}
