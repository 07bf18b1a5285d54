// The domain services, built once per process. Routes, jobs and connectors receive these;
// nothing outside a service touches a repository.
import { AdminService } from './admin/admin.service.ts';
import { AdminSessionService } from './platform/admin-sessions.service.ts';
import type { LogBuffer } from './admin/log-buffer.ts';
import { CatalogService } from './catalog/catalog.service.ts';
import { CatalogWriter } from './catalog/catalog-writer.service.ts';
import type { Config } from './config.ts';
import { ConnectorService } from './connectors/host/connectors.service.ts';
import type { Db } from './db/database.ts';
import { FeedService } from './feeds/feeds.service.ts';
import type { JobSender } from './jobs/job-map.ts';
import type { QueueInspector } from './jobs/queue-inspector.ts';
import type { Logger } from './logger.ts';
import { MarketplaceService } from './marketplaces/marketplaces.service.ts';
import { DestinationPolicy } from './platform/destination-policy.ts';
import { HealthService } from './platform/health.service.ts';
import { IdempotencyService } from './platform/idempotency.service.ts';
import { SecretBox } from './platform/secret-box.ts';
import { OrderService } from './orders/orders.service.ts';
import { LabelService } from './orders/label.service.ts';
import { ModuleIntegrationService } from './orders/module-integrations.service.ts';
import { ShopService } from './shops/shops.service.ts';
import { StatsService } from './stats/stats.service.ts';
import { WebhookService } from './webhooks/webhooks.service.ts';
import { TrackingService } from './tracking/tracking.service.ts';

export interface ServiceDeps {
  db: Db;
  jobs: JobSender & { ready(): Promise<boolean> };
  config: Config;
  logger: Logger;
  /** The job queue seen from the admin side; absent in CLI commands. */
  queues?: QueueInspector;
  /** Recent log lines of this process (admin log view). */
  logs?: LogBuffer;
}

export interface Services {
  shops: ShopService;
  marketplaces: MarketplaceService;
  idempotency: IdempotencyService;
  health: HealthService;
  webhooks: WebhookService;
  orders: OrderService;
  moduleIntegrations: ModuleIntegrationService;
  labels: LabelService;
  admin: AdminService;
  adminSessions: AdminSessionService;
  connectors: ConnectorService;
  catalog: CatalogService;
  feeds: FeedService;
  tracking: TrackingService;
}

export function createServices(deps: ServiceDeps): Services {
  // Where shops' webhooks may go: set-time checks (shops) and delivery-time checks (webhooks).
  const destinations = new DestinationPolicy(deps.config.webhookAllowPrivate);
  const secrets = SecretBox.fromConfig(deps.config);
  const shops = new ShopService(deps.db, destinations, secrets);
  const webhooks = new WebhookService({ db: deps.db, jobs: deps.jobs, shops, guard: destinations, timeoutMs: deps.config.webhookTimeoutMs });
  const catalog = new CatalogService(deps.db);
  // Stateless: the order service's own instance behaves as the one above.
  const orders = new OrderService(deps.db, new MarketplaceService(deps.db), webhooks, { baseUrl: deps.config.publicUrl ?? `http://${deps.config.host.includes(':') ? `[${deps.config.host}]` : deps.config.host}:${deps.config.port}` });
  const services: Services = {
    shops,
    marketplaces: new MarketplaceService(deps.db),
    idempotency: new IdempotencyService(deps.db),
    health: new HealthService(deps.db, () => deps.jobs.ready()),
    webhooks,
    orders,
    moduleIntegrations: new ModuleIntegrationService(deps.db),
    // Label links are signed with a key derived from the secret key: every replica opens them.
    labels: new LabelService(orders, shops, { key: () => secrets.deriveKey('label links') }),
    admin: new AdminService({ shops, stats: new StatsService(deps.db), queues: deps.queues, logs: deps.logs, connectors: () => services.connectors, feeds: () => services.feeds }),
    adminSessions: new AdminSessionService(deps.db),
    // Connectors get all services in their context, hence the getter.
    connectors: new ConnectorService({ db: deps.db, jobs: deps.jobs, config: deps.config, logger: deps.logger, services: () => services }),
    catalog,
    feeds: new FeedService({ db: deps.db, jobs: deps.jobs, catalog, writer: new CatalogWriter(), shops, webhooks, config: deps.config }),
    // Carrier tracking applies its actions through the same order service as the API.
    tracking: new TrackingService(deps.db, () => services.orders),
  };
  return services;
}
