// feed.process and feed.process.small: apply a feed's items (small ones in shared
// transactions). Transient errors are retried by the queue with backoff (processing resumes
// after the last committed chunk); after the last retry, or on a permanent error, the feed is
// marked failed with a critical saying why.
import { AppError, isTransient } from '../../errors.ts';
import type { Services } from '../../services.ts';
import { queueSettings, type JobHandler } from '../job-map.ts';

export const feedProcess = (services: Services, queue: 'feed.process' | 'feed.process.small'): JobHandler<typeof queue> => async (data, ctx) => {
  try {
    const options = { signal: ctx.signal };
    const feed = queue === 'feed.process.small'
      ? await services.feeds.processSmall(data.feedPk, options)
      : await services.feeds.process(data.feedPk, options);
    ctx.log.info({ feedPk: data.feedPk, state: feed?.state, counts: feed?.counts }, 'feed processed');
  } catch (error) {
    const exhausted = ctx.retryCount >= queueSettings[queue].retryLimit;
    if (!isTransient(error) || exhausted) {
      // What the shop reads: an AppError's own words, never a database's internals.
      const message = error instanceof AppError && error.status < 500
        ? error.message
        : `The feed could not be processed${exhausted ? ` after ${ctx.retryCount + 1} attempts` : ''}; the error is logged with job ${ctx.jobId}.`;
      await services.feeds.fail(data.feedPk, { code: exhausted ? 'retries_exhausted' : 'processing_failed', message })
        .catch((e: unknown) => ctx.log.error({ err: e, feedPk: data.feedPk }, 'could not mark the feed failed'));
    }
    throw error;
  }
};
