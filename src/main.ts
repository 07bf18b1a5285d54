// Composition root: config -> database -> job queue -> services -> HTTP, workers, scheduler.
// Each service is built here with the dependencies it names, in dependency order; routes, job
// handlers, the admin and the connector host get the services they use, never all of them.
import type { Config } from './config.ts';
import { connect, type Connection } from './db/connect.ts';
import { buildHandlers } from './jobs/handlers/index.ts';
import type { JobSender } from './jobs/job-map.ts';
import { JobQueue } from './jobs/job-queue.ts';
import type { QueueInspector } from './jobs/pg-boss-inspector.ts';
import type { Logger } from './logger.ts';
import { buildApp, type App, type AppServices } from './http/app.ts';
import { ConnectorService } from './connectors/host/connectors.service.ts';
import { connectorPorts } from './connectors/host/ports.ts';
import { connectorHashes } from './connectors/host/content-hashes.ts';
import { watchInboxes } from './connectors/host/inbox-watch.ts';
import { claimDataFolder, joinLine, type DaemonClaim } from './embedded-postgres/daemon-claim.ts';
import { startScheduler } from './scheduler/scheduler.ts';
import { ensurePortFree } from './system/port-check.ts';
import type { LogSink } from './logs/log-sink.ts';
import { LogLineService } from './logs/log-lines.service.ts';
import { AdminService } from './admin/admin.service.ts';
import { CatalogService } from './catalog/catalog.service.ts';
import { FeedService } from './feeds/feeds.service.ts';
import { FeedProcessService } from './feeds/feed-process.service.ts';
import { FeedPruneService } from './feeds/feed-prune.service.ts';
import { FeedRecoveryService } from './feeds/feed-recovery.service.ts';
import { FeedSubmitService } from './feeds/feed-submit.service.ts';
import { MarketplaceService } from './marketplaces/marketplaces.service.ts';
import { metrics } from './metrics/metrics.ts';
import { LabelService } from './orders/label.service.ts';
import { ModuleIntegrationService } from './orders/module-integrations.service.ts';
import { OrderService } from './orders/orders.service.ts';
import { AdminSessionService } from './admin-sessions/admin-sessions.service.ts';
import { configuredBaseUrl } from './system/base-url.ts';
import { DestinationPolicy } from './outbound/destination-policy.ts';
import { HealthService } from './system/health.service.ts';
import { IdempotencyService } from './idempotency/idempotency.service.ts';
import { SecretBox } from './shops/secret-box.ts';
import { ShopService } from './shops/shops.service.ts';
import { StatsService } from './stats/stats.service.ts';
import { TrackingService } from './tracking/tracking.service.ts';
import { WebhookService } from './webhooks/webhooks.service.ts';
import { connectorTypes } from '../connectors/index.ts';

/** The services a process built (a daemon's, or a CLI command's): the HTTP layer's, and tracking. */
export interface Services extends AppServices {
  tracking: TrackingService;
  feedProcess: FeedProcessService;
  feedPrune: FeedPruneService;
}

export interface ServiceDeps {
  db: Connection['db'];
  jobs: JobSender & { ready(): Promise<boolean> };
  config: Config;
  logger: Logger;
  /** The job queue seen from the admin side; absent in CLI commands. */
  queues?: QueueInspector;
  /** This process's log sink (how many lines the log table keeps, how many it dropped). */
  logs?: LogSink;
}

/** Builds every service once, each with what it uses, in dependency order. */
export function buildServices({ db, jobs, config, logger, queues, logs }: ServiceDeps): Services {
  // {base_url} of URLs made outside a request (feed and label links of jobs and connector runs).
  const baseUrl = configuredBaseUrl(config);
  // Where shops' webhooks may go: set-time checks (shops) and delivery-time checks (webhooks).
  const destinations = new DestinationPolicy(config.webhookAllowPrivate);
  const secrets = SecretBox.fromConfig(config);
  const shops = new ShopService(db, destinations, secrets);
  const marketplaces = new MarketplaceService(db);
  const webhooks = new WebhookService({ db, jobs, shops, guard: destinations, timeoutMs: config.webhookTimeoutMs });
  const catalog = new CatalogService(db);
  const orders = new OrderService(db, marketplaces, webhooks, { baseUrl });
  // Carrier tracking applies its actions through the same order service as the API.
  const tracking = new TrackingService(db, orders);
  const feedSubmit = new FeedSubmitService({ db, jobs, catalog, config });
  const feedRecovery = new FeedRecoveryService({ db, jobs });
  const connectors = new ConnectorService({
    db,
    jobs,
    config,
    logger,
    types: connectorTypes,
    ports: connectorPorts({ feeds: feedSubmit, shops, tracking }),
    baseUrl,
  });
  return {
    shops,
    marketplaces,
    idempotency: new IdempotencyService(db),
    health: new HealthService(db, () => jobs.ready()),
    webhooks,
    orders,
    moduleIntegrations: new ModuleIntegrationService(db),
    // Label links are signed with a key derived from the secret key: every replica opens them.
    labels: new LabelService(orders, shops, { key: () => secrets.deriveKey('label links') }),
    admin: new AdminService({
      shops,
      stats: new StatsService(db),
      queues,
      logs: new LogLineService(db, logs),
      connectors,
      deliveries: webhooks,
      feeds: feedRecovery,
    }),
    adminSessions: new AdminSessionService(db),
    connectors,
    catalog,
    feeds: new FeedService(db),
    feedSubmit,
    // The feed worker records connectors' content hashes through the host's port.
    feedProcess: new FeedProcessService({ db, jobs, shops, webhooks, appliedHashes: connectorHashes }),
    feedRecovery,
    feedPrune: new FeedPruneService(db),
    tracking,
  };
}
import { firstShopHint } from './cli/hint.ts';

export type Role = 'all' | 'api' | 'worker' | 'scheduler';
export const roles: Role[] = ['all', 'api', 'worker', 'scheduler'];

export interface Daemon {
  services: Services;
  app: App | null;
  jobs: JobQueue;
  connection: Connection;
  /** The address the API listens on, when this process serves it. */
  url: string | null;
  /** Reads the connectors file again (SIGHUP); a bad file changes nothing and throws its problems. */
  reloadConnectors(): ReturnType<ConnectorService['reload']>;
  stop(): Promise<void>;
}

export interface DaemonOptions {
  config: Config;
  logger: Logger;
  role: Role;
  /** The sink the logger also writes to: it stores the lines in log_lines once the database is up. */
  logs?: LogSink;
}

const has = (role: Role, part: Exclude<Role, 'all'>): boolean => role === 'all' || role === part;

/** Where the database is, for the ready line: the embedded one's folder, or an external one without its password. */
function databaseText(config: Config): string {
  if (config.databaseUrl === undefined) return `embedded Postgres in ${config.dataDir}`;
  const u = new URL(config.databaseUrl);
  return `Postgres at ${u.hostname}:${u.port || '5432'}${u.pathname}`;
}

/**
 * The line that says the daemon is ready and where everything is: in JSON its fields, on a
 * terminal (banner) its message alone.
 */
function readyLine(config: Config, role: Role, url: string | null, connectors: string[], ms: number): [Record<string, unknown>, string] {
  const docs = url === null ? null : `${url}/docs`;
  const admin = url === null ? null : config.adminToken === undefined ? 'off' : `${url}/admin/`;
  const parts = [
    `waybill is ready in ${(ms / 1000).toFixed(1)} s (role ${role})`,
    ...(url === null ? [] : [`API ${url}`, `docs ${docs}`, admin === 'off' ? 'admin off (set WAYBILL_ADMIN_TOKEN)' : `admin ${admin}`]),
    `database: ${databaseText(config)}`,
    `${connectors.length} connector${connectors.length === 1 ? '' : 's'} loaded${connectors.length === 0 ? '' : ` (${connectors.join(', ')})`} from ${config.connectorsFile}`,
  ];
  return [
    {
      banner: true,
      role,
      url,
      docs,
      admin,
      database: config.databaseUrl === undefined ? 'embedded' : 'external',
      dataDir: config.databaseUrl === undefined ? config.dataDir : undefined,
      connectors,
      ms,
    },
    parts.join(' · '),
  ];
}

export async function startDaemon({ config, logger, role, logs }: DaemonOptions): Promise<Daemon> {
  const started = Date.now();
  // Checked before anything is made (a data folder, a database): the API's port is free, and no
  // daemon of an overlapping role runs on the same embedded data folder.
  if (has(role, 'api')) await ensurePortFree(config.host, config.port);
  const claim: DaemonClaim | null = config.databaseUrl === undefined ? await claimDataFolder(config.dataDir, role) : null;
  if (claim !== null && claim.joined.length > 0) logger.info({ joined: claim.joined.map((d) => d.pid) }, joinLine(claim.joined));
  let connection: Connection;
  try {
    connection = await connect(config, logger, { superviseEmbedded: true });
  } catch (error) {
    await claim?.release();
    throw error;
  }
  const jobs = new JobQueue({
    connectionString: connection.connectionString,
    logger,
    supervise: has(role, 'scheduler'),
    connectTimeoutMs: config.dbTimeoutMs,
  });
  let app: App | null = null;
  const stops: (() => unknown)[] = [];
  logs?.attach(connection.db);
  try {
    await jobs.start();
    const services = buildServices({ db: connection.db, jobs, config, logger, queues: jobs.inspector, logs });
    const { pool } = connection;
    stops.push(
      metrics.setSources({
        pool: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max: config.dbPoolMax }),
        queues: () => jobs.inspector.listQueues(),
        feeds: () => services.admin.feedCounts(),
      }),
    );
    // The connectors file is checked at every start: a bad file stops start-up, every problem named.
    const loaded = services.connectors.load();
    stops.push(services.connectors.watchFile());
    // Webhook secrets stored before they were sealed (an upgraded database) are sealed now.
    const sealed = await services.shops.sealPlaintextSecrets();
    if (sealed > 0) logger.info({ shops: sealed }, 'webhook secrets sealed with the secret key');
    // Batches of feed jobs in flight per worker process (WAYBILL_WORKER_CONCURRENCY).
    let stoppedFeeds: { stop(): Promise<void> } | null = null;
    if (has(role, 'worker')) {
      await jobs.work(
        buildHandlers({
          catalog: services.catalog,
          feedProcess: services.feedProcess,
          feedPrune: services.feedPrune,
          connectors: services.connectors,
          webhooks: services.webhooks,
          idempotency: services.idempotency,
        }),
        { 'feed.process': config.workerConcurrency },
      );
      // Feeds left mid-way by a worker that died (kill -9, crash) resume now, not when their lease runs out.
      stoppedFeeds = services.feedRecovery.watch(logger);
    }
    let url: string | null = null;
    if (has(role, 'api')) {
      app = await buildApp({ config, services, logger });
      url = await app.listen({ host: config.host, port: config.port });
      await claim?.listening(url);
    }
    const scheduler = has(role, 'scheduler') ? startScheduler({ connectors: services.connectors, jobs, db: connection.db, logger }) : null;
    const inboxes = has(role, 'scheduler') ? watchInboxes(services.connectors, logger) : null;
    const [fields, text] = readyLine(
      config,
      role,
      url,
      loaded.map((c) => c.name),
      Date.now() - started,
    );
    logger.info(fields, text);
    if ((await services.shops.count()) === 0) {
      logger.info({ banner: true }, firstShopHint(config));
    }
    const apiServer = app;
    return {
      services,
      app: apiServer,
      jobs,
      connection,
      url,
      reloadConnectors: () => services.connectors.reload(),
      async stop() {
        // Stop taking requests and let in-flight ones finish; then let running jobs finish.
        const budget = config.shutdownTimeoutMs;
        inboxes?.stop();
        await scheduler?.stop();
        await stoppedFeeds?.stop();
        if (apiServer !== null) await apiServer.close();
        await jobs.stop(budget);
        for (const s of stops) s();
        await logs?.detach();
        await connection.close();
        await claim?.release();
        logger.info('waybill stopped');
      },
    };
  } catch (error) {
    await app?.close().catch(() => undefined);
    await jobs.stop(1_000).catch(() => undefined);
    for (const s of stops) s();
    await logs?.detach().catch(() => undefined);
    await connection.close().catch(() => undefined);
    await claim?.release().catch(() => undefined);
    throw error;
  }
}
