// feeds.requeue-stopped (every minute, scheduled by the scheduler role) and every worker
// process's own watch (at start, then every RECOVER_INTERVAL_MS): a feed whose worker died mid-way is
// queued again and resumes after its last committed chunk. Died: its process is provably gone
// (same host, pid no longer running) and it missed a heartbeat, or its lease ran out.
import type { Logger } from '../../logger.ts';
import type { FeedRecoveryService } from '../../feeds/feed-recovery.service.ts';
import type { JobHandler } from '../job-map.ts';

export const requeueStoppedFeeds =
  (feeds: Pick<FeedRecoveryService, 'recover'>): JobHandler<'feeds.requeue-stopped'> =>
  async (_data, ctx) => {
    const recovered = await feeds.recover();
    if (recovered.length > 0) ctx.log.warn({ feeds: recovered }, 'feeds whose worker stopped were queued again');
  };

/** How often a worker process looks for feeds whose worker died, ms. */
export const RECOVER_INTERVAL_MS = 1_000;

/** A worker process's watch for feeds whose worker died: at once, then every intervalMs. */
export function watchStoppedFeeds(
  feeds: Pick<FeedRecoveryService, 'recover'>,
  logger: Logger,
  intervalMs = RECOVER_INTERVAL_MS,
): { stop(): Promise<void> } {
  let running: Promise<void> = Promise.resolve();
  const check = (): void => {
    running = feeds.recover().then(
      (recovered) => {
        if (recovered.length > 0) logger.warn({ feeds: recovered }, 'feeds whose worker stopped were queued again');
      },
      (error: unknown) => logger.debug({ err: error }, 'looking for feeds whose worker stopped failed; next time'),
    );
  };
  check();
  const timer = setInterval(check, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
