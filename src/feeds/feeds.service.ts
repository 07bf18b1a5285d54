// Reading feeds: a shop's (the API) and every shop's (the admin), with their reports. The other
// jobs of the feed area each have their service: feed-submit (a catalog write becomes a feed),
// feed-process (applying it), feed-recovery (queueing a stopped one again), feed-prune.
import type { Db } from '../db/database.ts';
import { notFound } from '../errors.ts';
import { upgradeError, upgradeSuccess } from './feed-report.ts';
import { isFeedPk, toFeed } from './feeds.mapper.ts';
import * as repo from './feeds.repository.ts';
import type { Feed, FeedFilter, FeedState, FeedType } from './feeds.schemas.ts';

export class FeedService {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  /** A shop's feed with its results; 404 for another shop's or an unknown one. */
  async get(shopPk: number, feedPk: string): Promise<Feed> {
    const feed = await this.getAny(feedPk);
    if (feed.shop_pk !== shopPk) throw notFound(`Feed ${feedPk}`);
    return feed;
  }

  /** Any shop's feed with its results (admin). */
  async getAny(feedPk: string): Promise<Feed> {
    const row = isFeedPk(feedPk) ? await repo.findFeed(this.#db, feedPk) : undefined;
    if (row === undefined) throw notFound(`Feed ${feedPk}`);
    const chunks = await repo.results(this.#db, feedPk);
    const type = row.type as FeedType;
    return {
      ...toFeed(row),
      result: {
        success: chunks.flatMap((c) => c.success.map((x) => upgradeSuccess(type, x, row.product_pk))),
        errors: chunks.flatMap((c) => c.errors.map((x) => upgradeError(type, x, row.product_pk))),
        criticals: row.criticals,
      },
    };
  }

  async list(
    shopPk: number,
    filters: { state?: FeedState; type?: FeedType; limit: number; offset: number },
  ): Promise<{ count: number; results: Feed[] }> {
    return this.listAll({ ...filters, shopPk });
  }

  /** Feeds of every shop, newest first (admin); results left out. */
  async listAll(filter: FeedFilter): Promise<{ count: number; results: Feed[] }> {
    const { limit: _l, offset: _o, ...where } = filter;
    const [rows, count] = await Promise.all([repo.listFeeds(this.#db, filter), repo.countFeeds(this.#db, where)]);
    return { count, results: rows.map(toFeed) };
  }
}
