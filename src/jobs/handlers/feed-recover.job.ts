// feed.recover (every minute, scheduled by the scheduler role): a feed whose worker died
// mid-way (its lease, renewed at every chunk, ran out) is queued again and resumes after its
// last committed chunk.
import type { Services } from '../../services.ts';
import type { JobHandler } from '../job-map.ts';

export const feedRecover = (services: Services): JobHandler<'feed.recover'> => async (_data, ctx) => {
  const feeds = await services.feeds.recover();
  if (feeds.length > 0) ctx.log.warn({ feeds }, 'feeds whose worker stopped were queued again');
};
