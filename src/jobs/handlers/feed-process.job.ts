// feed.process: apply a feed's items. Transient errors are retried by the queue with backoff
// (processing resumes after the last committed chunk); after the last retry, or on a permanent
// error, the feed is marked failed with a critical saying why.
import { AppError, isTransient } from '../../errors.ts';
import type { FeedService } from '../../feeds/feeds.service.ts';
import { queueSettings, type JobHandler } from '../job-map.ts';

export const feedProcess = (feeds: Pick<FeedService, 'process' | 'fail'>): JobHandler<'feed.process'> => async (data, ctx) => {
  try {
    const feed = await feeds.process(data.feedPk, { signal: ctx.signal });
    ctx.log.info({ feedPk: data.feedPk, state: feed?.state, counts: feed?.counts }, 'feed processed');
  } catch (error) {
    const exhausted = ctx.retryCount >= queueSettings['feed.process'].retryLimit;
    if (!isTransient(error) || exhausted) {
      // What the shop reads: an AppError's own words, never a database's internals.
      const message = error instanceof AppError && error.status < 500
        ? error.message
        : `The feed could not be processed${exhausted ? ` after ${ctx.retryCount + 1} attempts` : ''}; the error is logged with job ${ctx.jobId}.`;
      await feeds.fail(data.feedPk, { code: exhausted ? 'retries_exhausted' : 'processing_failed', message })
        .catch((e: unknown) => ctx.log.error({ err: e, feedPk: data.feedPk }, 'could not mark the feed failed'));
    }
    throw error;
  }
};
