// A whole waybill daemon (HTTP, workers, scheduler) on a fresh test database, listening on a
// free port. Tests talk to it through app.inject or real HTTP at `url`.
import { Writable } from 'node:stream';
import { afterAll } from 'vitest';
import { loadConfig, type Config } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { LogSink } from '../../src/logs/log-sink.ts';
import { startDaemon, type Daemon, type Role } from '../../src/main.ts';
import { createTestDatabase, type TestDatabase } from './db.ts';

export interface TestDaemon extends Daemon {
  database: TestDatabase;
  config: Config;
  /** Every log line written, parsed (for tests of what the logs say). */
  logLines: Record<string, unknown>[];
  /** Creates a shop and a key for it. */
  shopWithKey(input?: {
    name?: string;
    webhook_url?: string | null;
  }): Promise<{ shopPk: number; key: string; auth: { authorization: string } }>;
}

export interface TestDaemonOptions {
  role?: Role;
  env?: Record<string, string>;
  /** Reuse a database (a second replica, a restart). */
  database?: TestDatabase;
}

export async function startTestDaemon(options: TestDaemonOptions = {}): Promise<TestDaemon> {
  const database = options.database ?? (await createTestDatabase());
  const config = loadConfig({
    DATABASE_URL: database.url,
    PORT: '0',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'info',
    WAYBILL_SHUTDOWN_TIMEOUT_MS: '5000',
    // Tests' webhook receivers listen on 127.0.0.1, which the default refuses: allowed here on
    // purpose. A test of the refusal passes WAYBILL_WEBHOOK_ALLOW_PRIVATE: '' (the default).
    WAYBILL_WEBHOOK_ALLOW_PRIVATE: '127.0.0.1',
    // No load shedding: on a machine busy with several test files the event loop lags past the
    // threshold and the API would answer 503 "overloaded" at random. A test of shedding itself
    // sets WAYBILL_MAX_EVENT_LOOP_DELAY_MS.
    WAYBILL_MAX_EVENT_LOOP_DELAY_MS: '0',
    ...options.env,
  });
  const logLines: Record<string, unknown>[] = [];
  const capture = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const line of chunk.toString().split('\n')) if (line.trim() !== '') logLines.push(JSON.parse(line) as Record<string, unknown>);
      cb();
    },
  });
  // Stored every 200 ms: the Logs page's tests see lines soon.
  const logs = new LogSink({ everyMs: 200 });
  const logger = createLogger({
    level: config.logLevel,
    pretty: false,
    streams: [
      { level: 'trace', stream: capture },
      { level: 'trace', stream: logs },
    ],
    // Lines go to the capture; to stderr too only when asked (TEST_LOG_LEVEL=debug npm test).
    fd: 2,
    console: process.env.TEST_LOG_LEVEL !== undefined,
  });
  const daemon = await startDaemon({ config, logger, role: options.role ?? 'all', logs });
  return {
    ...daemon,
    database,
    config,
    logLines,
    async shopWithKey(input = {}) {
      const shop = await daemon.services.shops.create({ name: input.name ?? 'Test shop', webhook_url: input.webhook_url ?? null });
      const { key } = await daemon.services.shops.createKey(shop.pk);
      return { shopPk: shop.pk, key, auth: { authorization: `Token ${key}` } };
    },
  };
}

/** A daemon for the whole test file, stopped and its database dropped after it. */
export async function useTestDaemon(options: TestDaemonOptions = {}): Promise<TestDaemon> {
  const daemon = await startTestDaemon(options);
  afterAll(async () => {
    await daemon.stop();
    await daemon.database.drop();
  });
  return daemon;
}
