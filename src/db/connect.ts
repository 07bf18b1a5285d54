// Where the database is: DATABASE_URL, or the embedded server under WAYBILL_DATA_DIR.
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { createDb, type Db } from './database.ts';
import { startEmbedded, superviseEmbedded, type EmbeddedHandle } from './embedded.ts';
import { migrateToLatest } from './migrator.ts';
import type pg from 'pg';

export interface Connection {
  db: Db;
  pool: pg.Pool;
  connectionString: string;
  mode: 'external' | 'embedded';
  /** Closes the pool; stops the embedded server when no other waybill process uses it. */
  close(): Promise<void>;
}

export async function connect(config: Config, logger: Logger, options: { migrate?: boolean; applicationName?: string; superviseEmbedded?: boolean } = {}): Promise<Connection> {
  let embedded: EmbeddedHandle | null = null;
  let connectionString = config.databaseUrl;
  if (connectionString === undefined) {
    embedded = await startEmbedded({ dataDir: config.dataDir, log: (m) => logger.info(m) });
    connectionString = embedded.connectionString;
    logger.info({ dataDir: config.dataDir, startedHere: embedded.startedHere }, embedded.startedHere ? 'embedded Postgres started' : 'joined the running embedded Postgres');
  }
  const watchdog = embedded !== null && options.superviseEmbedded === true
    ? superviseEmbedded({ dataDir: config.dataDir, connectionString, log: (m) => logger.warn(m) })
    : null;
  const { db, pool } = createDb({ connectionString, max: config.dbPoolMax, applicationName: options.applicationName ?? 'waybill' });
  try {
    if (options.migrate !== false) {
      const report = await migrateToLatest(db);
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
