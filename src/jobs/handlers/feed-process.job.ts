// feed.process: apply feeds, a batch of jobs at a time. The batch's small feeds are applied
// together in one transaction (FeedProcessService.applyBatch); every other feed of the batch (a large
// one, or one the shared transaction left out) is applied on its own, FEEDS_ALONE_IN_FLIGHT at
// once. Transient errors are retried by the queue with backoff (processing resumes after the
// last committed chunk); after the last retry, or on a permanent error, the feed is marked
// failed with a critical saying why.
import { AppError, isTransient } from '../../errors.ts';
import type { FeedProcessService } from '../../feeds/feed-process.service.ts';
import { queueSettings, type BatchJobHandler, type JobContext } from '../job-map.ts';

/** Feeds of one batch applied on their own at once (each a chunk transaction at a time). */
export const FEEDS_ALONE_IN_FLIGHT = 2;

type Feeds = Pick<FeedProcessService, 'applyBatch' | 'process' | 'fail'>;

async function processOne(feeds: Feeds, feedPk: string, ctx: JobContext): Promise<void> {
  try {
    const feed = await feeds.process(feedPk, { signal: ctx.signal });
    ctx.log.info({ feedPk, state: feed?.state, counts: feed?.counts }, 'feed processed');
  } catch (error) {
    const exhausted = ctx.retryCount >= queueSettings['feed.process'].retryLimit;
    if (!isTransient(error) || exhausted) {
      // What the shop reads: an AppError's own words, never a database's internals.
      const message =
        error instanceof AppError && error.status < 500
          ? error.message
          : `The feed could not be processed${exhausted ? ` after ${ctx.retryCount + 1} attempts` : ''}; the error is logged with job ${ctx.jobId}.`;
      await feeds
        .fail(feedPk, { code: exhausted ? 'retries_exhausted' : 'processing_failed', message })
        .catch((e: unknown) => ctx.log.error({ err: e, feedPk }, 'could not mark the feed failed'));
    }
    throw error;
  }
}

export const feedProcess =
  (feeds: Feeds): BatchJobHandler<'feed.process'> =>
  async (jobs) => {
    const first = jobs[0];
    if (first === undefined) return [];
    let together = new Set<string>();
    try {
      together = await feeds.applyBatch(jobs.map((j) => j.data.feedPk));
    } catch (error) {
      // Each feed is then applied alone, where its own retries and failure apply.
      first.ctx.log.warn({ err: error }, 'a batch of small feeds failed; its feeds are applied one by one');
    }
    const out: PromiseSettledResult<void>[] = new Array(jobs.length);
    const alone: number[] = [];
    for (const [i, j] of jobs.entries()) {
      if (!together.has(j.data.feedPk)) {
        alone.push(i);
        continue;
      }
      j.ctx.log.info({ feedPk: j.data.feedPk }, 'feed processed');
      out[i] = { status: 'fulfilled', value: undefined };
    }
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(FEEDS_ALONE_IN_FLIGHT, alone.length) }, async () => {
        while (next < alone.length) {
          const i = alone[next++]!;
          const { data, ctx } = jobs[i]!;
          out[i] = await processOne(feeds, data.feedPk, ctx).then(
            () => ({ status: 'fulfilled' as const, value: undefined }),
            (reason: unknown) => ({ status: 'rejected' as const, reason }),
          );
        }
      }),
    );
    return out;
  };
