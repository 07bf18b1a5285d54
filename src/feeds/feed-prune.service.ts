// Pruning feeds: the prune.feeds job (daily) drops feeds past their retention, with their
// payloads and results.
import type { Db } from '../db/database.ts';
import * as repo from './feeds.repository.ts';

export class FeedPruneService {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  /** Deletes feeds older than `days` (default 30), in batches; returns how many. */
  async prune(days = 30): Promise<number> {
    let total = 0;
    for (let n = -1; n !== 0;) {
      n = await repo.pruneFeeds(this.#db, days, 1_000);
      total += n;
    }
    return total;
  }
}
