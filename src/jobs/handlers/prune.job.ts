// prune.*: each drops one kind of record past the retention its service keeps (scheduled daily
// by the scheduler role, src/scheduler/scheduler.ts).
import type { ConnectorService } from '../../connectors/host/connectors.service.ts';
import type { FeedPruneService } from '../../feeds/feed-prune.service.ts';
import type { IdempotencyService } from '../../idempotency/idempotency.service.ts';
import type { WebhookService } from '../../webhooks/webhooks.service.ts';
import type { JobHandler } from '../job-map.ts';

export const pruneFeeds =
  (feeds: Pick<FeedPruneService, 'prune'>): JobHandler<'prune.feeds'> =>
  async (_data, ctx) => {
    ctx.log.info({ deleted: await feeds.prune() }, 'old feeds pruned');
  };

export const pruneIdempotencyKeys =
  (idempotency: Pick<IdempotencyService, 'prune'>): JobHandler<'prune.idempotency-keys'> =>
  async (_data, ctx) => {
    ctx.log.info({ deleted: await idempotency.prune() }, 'old idempotency keys pruned');
  };

export const pruneWebhookDeliveries =
  (webhooks: Pick<WebhookService, 'prune'>): JobHandler<'prune.webhook-deliveries'> =>
  async (_data, ctx) => {
    ctx.log.info({ deleted: await webhooks.prune() }, 'old webhook delivery records pruned');
  };

export const pruneReceipts =
  (connectors: Pick<ConnectorService, 'pruneReceipts'>): JobHandler<'prune.receipts'> =>
  async (_data, ctx) => {
    ctx.log.info({ deleted: await connectors.pruneReceipts() }, 'old connector receipts pruned');
  };
