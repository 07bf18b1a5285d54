// feed.prune (daily, scheduled by the scheduler role): feeds are kept 30 days, idempotency
// keys 24 hours.
import type { Services } from '../../services.ts';
import type { JobHandler } from '../job-map.ts';

export const FEED_RETENTION_DAYS = 30;

export const feedPrune = (services: Services): JobHandler<'feed.prune'> => async (_data, ctx) => {
  const feeds = await services.feeds.prune(FEED_RETENTION_DAYS);
  const keys = await services.idempotency.prune();
  ctx.log.info({ feeds, idempotencyKeys: keys }, 'pruned old feeds and idempotency keys');
};
