// The handler of every job in the job map. The JobHandlers type makes a missing one a type
// error; JobQueue.work checks again at start-up.
import type { CatalogService } from '../../catalog/catalog.service.ts';
import type { ConnectorService } from '../../connectors/host/connectors.service.ts';
import type { FeedProcessService } from '../../feeds/feed-process.service.ts';
import type { FeedPruneService } from '../../feeds/feed-prune.service.ts';
import type { IdempotencyService } from '../../idempotency/idempotency.service.ts';
import type { WebhookService } from '../../webhooks/webhooks.service.ts';
import type { JobHandlers } from '../job-map.ts';
import { connectorRun } from './connector-run.job.ts';
import { feedProcess as processFeeds } from './feed-process.job.ts';
import { pruneFeeds, pruneIdempotencyKeys, pruneReceipts, pruneWebhookDeliveries } from './prune.job.ts';
import { webhookDeliver } from './webhook-deliver.job.ts';

/** The services the job handlers use. */
export interface HandlerServices {
  catalog: CatalogService;
  feedProcess: FeedProcessService;
  feedPrune: FeedPruneService;
  connectors: ConnectorService;
  webhooks: WebhookService;
  idempotency: IdempotencyService;
}

export const buildHandlers = ({ catalog, feedProcess, feedPrune, connectors, webhooks, idempotency }: HandlerServices): JobHandlers => ({
  'catalog.tidy': async (_data, ctx) => {
    const t0 = Date.now();
    await catalog.tidy();
    ctx.log.info({ ms: Date.now() - t0 }, 'catalog tables vacuumed and analysed');
  },
  'webhook.deliver': webhookDeliver(webhooks),
  'connector.run': connectorRun(connectors),
  'feed.process': processFeeds(feedProcess),
  'prune.feeds': pruneFeeds(feedPrune),
  'prune.idempotency-keys': pruneIdempotencyKeys(idempotency),
  'prune.webhook-deliveries': pruneWebhookDeliveries(webhooks),
  'prune.receipts': pruneReceipts(connectors),
});
