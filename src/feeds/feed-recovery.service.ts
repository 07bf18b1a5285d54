// Recovering stopped feeds: recover() queues again the feeds whose worker died mid-way, retry()
// a feed that failed (the admin's). Either resumes after its last committed chunk.
import type { Db, Trx } from '../db/database.ts';
import { inTransaction } from '../db/database.ts';
import { conflict, notFound } from '../errors.ts';
import type { JobSender } from '../jobs/job-map.ts';
import { ownerGone } from '../system/process-owner.ts';
import { isFeedPk, toFeed } from './feeds.mapper.ts';
import * as repo from './feeds.repository.ts';
import type { Feed } from './feeds.schemas.ts';

export interface FeedRecoveryDeps {
  db: Db;
  jobs: JobSender;
}

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
