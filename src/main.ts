// Composition root: config -> database -> job queue -> services -> HTTP, workers, scheduler.
import type { Config } from './config.ts';
import { connect, type Connection } from './db/connect.ts';
import { buildHandlers } from './jobs/handlers/index.ts';
import { watchStoppedFeeds } from './jobs/handlers/feed-recover.job.ts';
import { JobQueue } from './jobs/job-queue.ts';
import type { Logger } from './logger.ts';
import { createServices, type Services } from './services.ts';
import { buildApp, type App } from './http/app.ts';
import { startConnectorScheduler } from './connectors/host/scheduler.ts';
import type { LogBuffer } from './admin/log-buffer.ts';
import { metrics } from './metrics/metrics.ts';

export type Role = 'all' | 'api' | 'worker' | 'scheduler';
export const roles: Role[] = ['all', 'api', 'worker', 'scheduler'];

export interface Daemon {
  services: Services;
  app: App | null;
  jobs: JobQueue;
  connection: Connection;
  /** The address the API listens on, when this process serves it. */
  url: string | null;
  stop(): Promise<void>;
}

export interface DaemonOptions {
  config: Config;
  logger: Logger;
  role: Role;
  /** The recent-lines buffer the logger also writes to (admin log view); none: the view is empty. */
  logs?: LogBuffer;
}

const has = (role: Role, part: Exclude<Role, 'all'>): boolean => role === 'all' || role === part;

export async function startDaemon({ config, logger, role, logs }: DaemonOptions): Promise<Daemon> {
  const started = Date.now();
  const connection = await connect(config, logger, { superviseEmbedded: true });
  const jobs = new JobQueue({ connectionString: connection.connectionString, logger, supervise: has(role, 'scheduler'), connectTimeoutMs: config.dbTimeoutMs });
  let app: App | null = null;
  try {
    await jobs.start();
    const services = createServices({ db: connection.db, jobs, config, logger, queues: jobs, logs });
    const { pool } = connection;
    const unsetMetricSources = metrics.setSources({
      pool: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max: config.dbPoolMax }),
      queues: () => jobs.listQueues(),
      feeds: () => services.admin.feedCounts(),
    });
    // The connectors file is checked at every start: a bad entry stops start-up, named.
    services.connectors.load();
    // Webhook secrets stored before they were sealed (an upgraded database) are sealed now.
    const sealed = await services.shops.sealPlaintextSecrets();
    if (sealed > 0) logger.info({ shops: sealed }, 'webhook secrets sealed with the secret key');
    // Feed jobs at once per worker process (WAYBILL_WORKER_CONCURRENCY).
    let stoppedFeeds: { stop(): Promise<void> } | null = null;
    if (has(role, 'worker')) {
      await jobs.work(buildHandlers(services), { 'feed.process': config.workerConcurrency });
      // Feeds left mid-way by a worker that died (kill -9, crash) resume now, not when their lease runs out.
      stoppedFeeds = watchStoppedFeeds(services, logger);
      // Connectors load what their first run needs (catalog-file: a CSV reader) meanwhile.
      void services.connectors.prepare().catch((error: unknown) => logger.warn({ err: error }, 'connectors could not prepare; their runs start without it'));
    }
    let url: string | null = null;
    if (has(role, 'api')) {
      app = await buildApp({ config, services, logger });
      url = await app.listen({ host: config.host, port: config.port });
    }
    logger.info({ role, url, database: connection.mode, ms: Date.now() - started }, 'waybill is ready');
    if ((await services.shops.count()) === 0) {
      logger.info('No shop yet. Create one with: npx waybill shops create --name "My shop"   then a key with: npx waybill keys create --shop 1');
    }
    const scheduler = has(role, 'scheduler') ? startConnectorScheduler(services.connectors, logger) : null;
    // Daily at 03:17 (UTC): feeds older than 30 days and idempotency keys older than 24 h go.
    // pg-boss runs a schedule once across replicas.
    if (has(role, 'scheduler')) {
      await jobs.boss.schedule('feed.prune', '17 3 * * *', {});
      // Every minute: feeds whose worker died (its lease ran out) are queued again.
      await jobs.boss.schedule('feed.recover', '* * * * *', {});
    }
    const apiServer = app;
    return {
      services,
      app: apiServer,
      jobs,
      connection,
      url,
      async stop() {
        // Stop taking requests and let in-flight ones finish; then let running jobs finish.
        const budget = config.shutdownTimeoutMs;
        await scheduler?.stop();
        await stoppedFeeds?.stop();
        if (apiServer !== null) await apiServer.close();
        await jobs.stop(budget);
        unsetMetricSources();
        await connection.close();
        logger.info('waybill stopped');
      },
    };
  } catch (error) {
    await app?.close().catch(() => undefined);
    await jobs.stop(1_000).catch(() => undefined);
    await connection.close().catch(() => undefined);
    throw error;
  }
}
