// Recovering stopped feeds: recover() queues again the feeds whose worker died mid-way (kill -9,
// crash, lost host), retry() a feed that failed (the admin's). Either resumes after its last
// committed chunk. recover() has one caller, watch(): every worker process looks at start and
// then every RECOVER_INTERVAL_MS, so a dead worker's feed resumes within seconds wherever the
// other workers run (a worker restarted on its own takes its predecessor's feeds at start).
import type { Db, Trx } from '../db/database.ts';
import { inTransaction } from '../db/database.ts';
import { conflict, notFound } from '../errors.ts';
import type { JobSender } from '../jobs/job-map.ts';
import type { Logger } from '../logger.ts';
import { ownerGone } from '../system/process-owner.ts';
import { isFeedPk, toFeed } from './feeds.mapper.ts';
import * as repo from './feeds.repository.ts';
import type { Feed } from './feeds.schemas.ts';

export interface FeedRecoveryDeps {
  db: Db;
  jobs: JobSender;
}

/** How often a worker process looks for feeds whose worker died, ms. */
export const RECOVER_INTERVAL_MS = 1_000;

export class FeedRecoveryService {
  readonly #d: FeedRecoveryDeps;
  constructor(deps: FeedRecoveryDeps) {
    this.#d = deps;
  }

  /** Queues a feed that failed (or got stuck) again; processing resumes after its last committed chunk. */
  async retry(feedPk: string): Promise<Feed> {
    const row = isFeedPk(feedPk) ? await repo.findFeed(this.#d.db, feedPk) : undefined;
    if (row === undefined) throw notFound(`Feed ${feedPk}`);
    if (row.state === 'done') throw conflict(`Feed ${feedPk} is done; there is nothing to retry.`);
    const updated = await inTransaction(this.#d.db, async (trx) => {
      const r = await repo.requeue(trx, feedPk);
      await this.#enqueue(trx, [feedPk]);
      return r;
    });
    this.#d.jobs.wake?.('feed.process');
    return toFeed(updated ?? row);
  }

  /**
   * Queues again the feeds whose worker died mid-way: its process is provably gone (same host,
   * pid not running) and it missed a heartbeat, or its lease ran out. Returns their pks.
   */
  async recover(): Promise<string[]> {
    const pks = await inTransaction(this.#d.db, async (trx) => {
      const stale = await repo.takeStaleFeeds(trx, ownerGone);
      await this.#enqueue(trx, stale);
      return stale;
    });
    if (pks.length > 0) this.#d.jobs.wake?.('feed.process');
    return pks;
  }

  /** A worker process's watch for feeds whose worker died: at once, then every intervalMs. */
  watch(logger: Logger, intervalMs = RECOVER_INTERVAL_MS): { stop(): Promise<void> } {
    let running: Promise<void> = Promise.resolve();
    const check = (): void => {
      running = this.recover().then(
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

  /** Queues feeds' processing, each in its shop's group (the fair share of its tier). */
  async #enqueue(trx: Trx, feedPks: string[]): Promise<void> {
    const groups = await repo.jobGroupsOf(trx, feedPks);
    await this.#d.jobs.sendMany(
      trx,
      'feed.process',
      groups.map((g) => ({ data: { feedPk: g.pk }, group: { id: String(g.shop_pk), tier: g.tier } })),
    );
  }
}
