// feed.prune (daily, scheduled by the scheduler role): feeds are kept 30 days, idempotency
// keys 24 hours, webhook delivery records 30 days.
import type { Services } from '../../services.ts';
import type { JobHandler } from '../job-map.ts';

export const FEED_RETENTION_DAYS = 30;

export const feedPrune = (services: Services): JobHandler<'feed.prune'> => async (_data, ctx) => {
  const feeds = await services.feeds.prune(FEED_RETENTION_DAYS);
  const keys = await services.idempotency.prune();
  const deliveries = await services.webhooks.prune();
  ctx.log.info({ feeds, idempotencyKeys: keys, webhookAttempts: deliveries }, 'pruned old feeds, idempotency keys and webhook delivery records');
};
