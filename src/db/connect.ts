// Where the database is: DATABASE_URL, or the embedded server under WAYBILL_DATA_DIR.
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { createDb, type Db } from './database.ts';
import { startEmbedded, superviseEmbedded, type EmbeddedHandle } from '../embedded-postgres/embedded-postgres.ts';
import { migrateToLatest, type MigrationReport } from './migrator.ts';
import type pg from 'pg';

/** Per statement of a migration, ms (see connect). */
export const MIGRATION_TIME_LIMIT_MS = 30 * 60_000;

/**
 * Runs the migrations on a connection of their own with MIGRATION_TIME_LIMIT_MS per statement,
 * not the requests' bound: an index built on a big table, or the wait for another replica's
 * migration lock, must not be cut short.
 */
export async function migrate(connectionString: string): Promise<MigrationReport> {
  const { db } = createDb({ connectionString, max: 1, applicationName: 'waybill-migrate', timeoutMs: MIGRATION_TIME_LIMIT_MS });
  try {
    return await migrateToLatest(db);
  } finally {
    await db.destroy();
  }
}

export interface Connection {
  db: Db;
  pool: pg.Pool;
  connectionString: string;
  mode: 'external' | 'embedded';
  /** Closes the pool; stops the embedded server when no other waybill process uses it. */
  close(): Promise<void>;
}

export async function connect(
  config: Config,
  logger: Logger,
  options: { migrate?: boolean; applicationName?: string; superviseEmbedded?: boolean } = {},
): Promise<Connection> {
  let embedded: EmbeddedHandle | null = null;
  let connectionString = config.databaseUrl;
  if (connectionString === undefined) {
    embedded = await startEmbedded({ dataDir: config.dataDir, log: (m) => logger.info(m) });
    connectionString = embedded.connectionString;
    logger.info(
      { dataDir: config.dataDir, startedHere: embedded.startedHere },
      embedded.startedHere ? 'embedded Postgres started' : 'joined the running embedded Postgres',
    );
  }
  const watchdog =
    embedded !== null && options.superviseEmbedded === true
      ? superviseEmbedded({ dataDir: config.dataDir, connectionString, log: (m) => logger.warn(m) })
      : null;
  const { db, pool } = createDb({
    connectionString,
    max: config.dbPoolMax,
    applicationName: options.applicationName ?? 'waybill',
    timeoutMs: config.dbTimeoutMs,
  });
  try {
    if (options.migrate !== false) {
      const report = await migrate(connectionString);
      if (report.applied.length > 0) logger.info({ applied: report.applied }, 'database migrated');
    }
  } catch (error) {
    watchdog?.stop();
    await db.destroy();
    if (embedded !== null) await embedded.release();
    throw error;
  }
  return {
    db,
    pool,
    connectionString,
    mode: embedded === null ? 'external' : 'embedded',
    async close() {
      watchdog?.stop();
      await db.destroy();
      if (embedded !== null && (await embedded.release())) logger.info('embedded Postgres stopped');
    },
  };
}
