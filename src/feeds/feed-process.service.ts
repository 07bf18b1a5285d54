// Processing feeds (the feed.process job's work): process() applies a feed's items a chunk at
// a time (each chunk, its report and the counts commit together, so a rerun resumes after the
// last committed chunk and never applies or reports an item twice), under a lease renewed by a
// heartbeat; applyBatch() applies many small feeds in one transaction. A feed whose worker dies
// is queued again by feed-recovery.service.ts; fail() marks one failed for good.
import { applyChunk } from '../catalog/apply/apply-engine.ts';
import type { ChunkOutcome, Indexed, ItemSuccess, ReportWarning } from '../catalog/apply/items.ts';
import { chunkSizeOf, FEED_OPERATIONS } from '../catalog/apply/operations.ts';
import { metrics } from '../metrics/metrics.ts';
import { inTransaction, limitStatements, withTimeLimit, type Db, type Executor, type Trx } from '../db/database.ts';
import { thisOwner } from '../system/process-owner.ts';
import { unavailable } from '../errors.ts';
import type { JobSender } from '../jobs/job-map.ts';
import type { ShopService } from '../shops/shops.service.ts';
import type { WebhookService } from '../webhooks/webhooks.service.ts';
import { rememberApplied } from './feed-hashes.ts';
import type { AppliedHashes } from './feed-ports.ts';
import { withWarnings } from './feed-report.ts';
import { toFeed } from './feeds.mapper.ts';
import { feedUrl, statusOf } from './feeds.presenter.ts';
import * as repo from './feeds.repository.ts';
import type { Feed, FeedCritical, FeedState, FeedType } from './feeds.schemas.ts';

export interface FeedProcessDeps {
  db: Db;
  jobs: JobSender;
  shops: ShopService;
  webhooks: WebhookService;
  /** The connector host's content hashes, recorded as a connector feed's items are applied. */
  appliedHashes: AppliedHashes;
}

/**
 * The time limit of each statement while a feed is applied (a chunk of 1,000 items), ms: long
 * work, not bound by WAYBILL_DB_TIMEOUT_MS.
 */
export const FEED_CHUNK_TIME_LIMIT_MS = 120_000;

/**
 * Feeds of at most this many items are applied together, a batch of them in one transaction
 * (applyBatch); larger ones a chunk per transaction, each feed on its own (process).
 */
export const SMALL_FEED_ITEMS = 100;
/** A feed of at least this many items, once done, queues catalog.tidy (VACUUM ANALYZE of the catalog). */
export const TIDY_AFTER_ITEMS = 500;

/**
 * A chunk's outcome split back into its feeds' (`firsts`: each feed's first index in the
 * chunk), with each item's index and pointer its own feed's.
 */
function splitOutcome(all: ChunkOutcome, firsts: number[]): ChunkOutcome[] {
  const out = firsts.map((): ChunkOutcome => ({ success: [], errors: [] }));
  const feedOf = (index: number): number => {
    let i = firsts.length - 1;
    while (firsts[i]! > index) i--;
    return i;
  };
  for (const s of all.success) {
    const i = feedOf(s.index);
    out[i]!.success.push({ ...s, index: s.index - firsts[i]! });
  }
  for (const e of all.errors) {
    const i = feedOf(e.index);
    const index = e.index - firsts[i]!;
    out[i]!.errors.push({ ...e, index, pointer: e.pointer.replace(/^\/\d+/, `/${index}`) });
  }
  return out;
}

/** A payload's validation warnings, by item index (payloads from before codes: unknown_field). */
const warningsByIndex = (warnings: { index: number; pointer: string; code?: string; message: string }[]) => {
  const byIndex = new Map<number, ReportWarning[]>();
  for (const w of warnings)
    (byIndex.get(w.index) ?? byIndex.set(w.index, []).get(w.index)!).push({
      pointer: w.pointer,
      code: w.code ?? 'unknown_field',
      message: w.message,
    });
  return byIndex;
};

export class FeedProcessService {
  readonly #d: FeedProcessDeps;
  /** This process as the owner of the feeds it processes (leases). */
  readonly #owner = thisOwner();
  constructor(deps: FeedProcessDeps) {
    this.#d = deps;
  }

  /** Applies a feed's items a chunk per transaction, resuming after the last committed chunk. A finished feed is left as it is. */
  process(feedPk: string, options: { signal?: AbortSignal } = {}): Promise<Feed | null> {
    // A chunk of 1,000 items is long work: its statements get FEED_CHUNK_TIME_LIMIT_MS, not
    // the requests' WAYBILL_DB_TIMEOUT_MS.
    return withTimeLimit(FEED_CHUNK_TIME_LIMIT_MS, () => this.#process(feedPk, options));
  }

  async #process(feedPk: string, options: { signal?: AbortSignal }): Promise<Feed | null> {
    const db = this.#d.db;
    const feed = await repo.findForProcessing(db, feedPk);
    if (feed === undefined) return null; // pruned meanwhile
    if (feed.state === 'done' || feed.state === 'failed') return toFeed(feed);
    const payload = { items: feed.payload_items, warnings: feed.payload_warnings };
    const warningsOf = warningsByIndex(payload.warnings);
    const hasWebhook = feed.has_webhook;
    const type = feed.type as FeedType;
    const target = { shopPk: feed.shop_pk, productPk: feed.product_pk, variationPk: feed.variation_pk };
    const size = chunkSizeOf(type, feed.total);
    const owner = thisOwner();
    // The feed shows `processing` and holds a lease (this process as its owner, renewed by a
    // heartbeat) from the start, so that when this process dies another one takes it over at
    // once (FeedRecoveryService.recover). The lock is the chunks' own NOWAIT lock: a feed another worker is in
    // fails fast (transient: the job retries).
    await repo.markProcessing(db, feedPk, owner);
    const beat = setInterval(() => {
      void repo.heartbeat(db, feedPk, owner).catch(() => undefined);
    }, repo.HEARTBEAT_SECONDS * 1000);
    try {
      let last: repo.FeedRow | undefined;
      for (let finished = false; !finished;) {
        if (options.signal?.aborted === true) throw unavailable(`Feed ${feedPk} was interrupted (shutdown); it resumes on retry.`);
        let applied = { succeeded: 0, failed: 0 };
        finished = await inTransaction(db, async (trx) => {
          await limitStatements(trx);
          const cur = await repo.lockFeed(trx, feedPk);
          if (cur === undefined || cur.state === 'done' || cur.state === 'failed') return true;
          if (cur.state === 'queued') await repo.markProcessing(trx, feedPk, owner);
          const offset = cur.processed;
          const chunk = payload.items.slice(offset, offset + size).map((item, i) => ({ index: offset + i, item }));
          const outcome: ChunkOutcome = chunk.length === 0 ? { success: [], errors: [] } : await applyChunk(trx, type, target, chunk);
          await rememberApplied(this.#d.appliedHashes, trx, feed, outcome.success);
          let warnings = 0;
          for (const s of outcome.success) {
            withWarnings(s, warningsOf.get(s.index) ?? []);
            warnings += s.warnings.length;
          }
          await repo.insertResult(trx, {
            feed_pk: feedPk,
            offset,
            success: JSON.stringify(outcome.success),
            errors: JSON.stringify(outcome.errors),
          });
          const processed = offset + chunk.length;
          const done = processed >= feed.total;
          const row = await repo.advance(trx, feedPk, {
            processed,
            succeeded: outcome.success.length,
            failed: outcome.errors.length,
            warnings,
            done,
            owner,
          });
          applied = { succeeded: outcome.success.length, failed: outcome.errors.length };
          if (done) await this.#emit(trx, row, hasWebhook);
          // A large feed leaves many new row versions: the catalog's tables are tidied after it
          // (catalog.tidy), so lists read only the index right away, not once autovacuum runs.
          if (done && feed.total >= TIDY_AFTER_ITEMS) await this.#d.jobs.send(trx, 'catalog.tidy', {});
          if (done) last = row;
          return done;
        });
        // Counted once the chunk is committed (a rolled-back chunk is applied again later).
        metrics.feedItems(type, 'succeeded', applied.succeeded);
        metrics.feedItems(type, 'failed', applied.failed);
      }
      const after = last ?? (await repo.findFeed(db, feedPk));
      return after === undefined ? null : toFeed(after);
    } finally {
      clearInterval(beat);
    }
  }

  /**
   * Applies the small feeds among `feedPks` (SMALL_FEED_ITEMS items at most) in one transaction:
   * each feed's items in a savepoint of their own (applyChunk), then every applied feed's report
   * and counts in one statement each, and the commit. It buys the drain rate of one-product
   * feeds (one transaction, one commit and a few statements for a whole batch instead of per
   * feed: docs/benchmarks.md); it costs a feed of the batch the wait for the others. The feeds
   * are marked `processing` under this process's lease first (committed), so a process killed
   * mid-batch leaves them to FeedRecoveryService.recover like any other. Returns the feeds that need nothing more
   * (applied here, or done, failed or gone already); the rest (large feeds, a feed another
   * worker holds, a feed whose apply threw) are for process().
   */
  applyBatch(feedPks: string[]): Promise<Set<string>> {
    return withTimeLimit(FEED_CHUNK_TIME_LIMIT_MS, () => this.#applyBatch(feedPks));
  }

  async #applyBatch(feedPks: string[]): Promise<Set<string>> {
    const db = this.#d.db;
    const owner = this.#owner;
    const feeds = await repo.findManyForProcessing(db, feedPks);
    const finished = new Set(feedPks);
    const small: repo.FeedToProcess[] = [];
    for (const f of feeds) {
      if (f.state === 'done' || f.state === 'failed') continue;
      if (f.processed === 0 && f.total <= SMALL_FEED_ITEMS) small.push(f);
      else finished.delete(f.pk);
    }
    if (small.length === 0) return finished;
    const marked = new Set(
      await repo.markManyProcessing(
        db,
        small.map((f) => f.pk),
        owner,
      ),
    );
    for (const f of small) finished.delete(f.pk);
    const beat = setInterval(() => {
      void repo.heartbeatMany(db, [...marked], owner).catch(() => undefined);
    }, repo.HEARTBEAT_SECONDS * 1000);
    try {
      const { rows, counts } = await inTransaction(db, async (trx) => {
        await limitStatements(trx);
        const locked = new Set(await repo.lockUntouched(trx, [...marked]));
        const results: { feed_pk: string; offset: number; success: ItemSuccess[]; errors: unknown[] }[] = [];
        const done: { pk: string; processed: number; succeeded: number; failed: number; warnings: number }[] = [];
        const applied: { type: FeedType; succeeded: number; failed: number }[] = [];
        for (const [feed, outcome] of await this.#applyTogether(
          trx,
          small.filter((f) => locked.has(f.pk)),
        )) {
          const type = feed.type as FeedType;
          const warningsOf = warningsByIndex(feed.payload_warnings);
          let warnings = 0;
          for (const s of outcome.success) {
            withWarnings(s, warningsOf.get(s.index) ?? []);
            warnings += s.warnings.length;
          }
          results.push({ feed_pk: feed.pk, offset: 0, success: outcome.success, errors: outcome.errors });
          done.push({ pk: feed.pk, processed: feed.total, succeeded: outcome.success.length, failed: outcome.errors.length, warnings });
          applied.push({ type, succeeded: outcome.success.length, failed: outcome.errors.length });
        }
        await repo.insertResults(trx, results);
        const finishedRows = await repo.finishMany(trx, done);
        const hooks = new Map(small.map((f) => [f.pk, f.has_webhook]));
        for (const row of finishedRows) if (hooks.get(row.pk) === true) await this.#emit(trx, row, true);
        return { rows: finishedRows, counts: applied };
      });
      // Counted once committed, as process() does.
      for (const c of counts) {
        metrics.feedItems(c.type, 'succeeded', c.succeeded);
        metrics.feedItems(c.type, 'failed', c.failed);
      }
      for (const row of rows) finished.add(row.pk);
      return finished;
    } finally {
      clearInterval(beat);
    }
  }

  /**
   * Applies small feeds in the caller's transaction and returns each applied feed's outcome
   * (by its own item indexes). The feeds of one shop, operation and target are applied as one
   * chunk (the apply engine already applies a chunk's items in order, a later item of a sku
   * after an earlier one, and isolates an item the database refuses), which is a few statements
   * for the whole group instead of per feed; an image set stays a feed of its own. A group that
   * throws is applied again feed by feed, each in its savepoint; a feed that throws alone is
   * left out (rolled back to its savepoint) for process() to apply and report.
   */
  async #applyTogether(trx: Trx, feeds: repo.FeedToProcess[]): Promise<[repo.FeedToProcess, ChunkOutcome][]> {
    // A feed naming a sku or pk already in its group starts another group: in one chunk the
    // engine folds items of one key into the last, where feeds applied one after the other keep
    // what each added (a variation of each).
    const open = new Map<string, { feeds: repo.FeedToProcess[]; keys: Set<string> }>();
    const groups: repo.FeedToProcess[][] = [];
    for (const f of feeds) {
      const key =
        FEED_OPERATIONS[f.type as FeedType].chunkSize === 'whole' ? f.pk : `${f.shop_pk}/${f.type}/${f.product_pk}/${f.variation_pk}`;
      const keys = f.payload_items.map((item) => `${String(item.sku ?? '')}/${String(item.pk ?? '')}`);
      let group = open.get(key);
      if (group === undefined || keys.some((k) => group!.keys.has(k))) {
        group = { feeds: [], keys: new Set() };
        open.set(key, group);
        groups.push(group.feeds);
      }
      group.feeds.push(f);
      for (const k of keys) group.keys.add(k);
    }
    const out: [repo.FeedToProcess, ChunkOutcome][] = [];
    for (const group of groups) {
      const head = group[0]!;
      const type = head.type as FeedType;
      const target = { shopPk: head.shop_pk, productPk: head.product_pk, variationPk: head.variation_pk };
      const firsts: number[] = [];
      const items: Indexed<unknown>[] = [];
      for (const f of group) {
        firsts.push(items.length);
        for (const item of f.payload_items) items.push({ index: items.length, item });
      }
      let outcomes: (ChunkOutcome | null)[];
      try {
        const all = items.length === 0 ? { success: [], errors: [] } : await applyChunk(trx, type, target, items);
        outcomes = splitOutcome(all, firsts);
      } catch {
        outcomes = [];
        for (const f of group) {
          const own = f.payload_items.map((item, index) => ({ index, item }));
          outcomes.push(
            await (own.length === 0 ? Promise.resolve({ success: [], errors: [] }) : applyChunk(trx, type, target, own)).catch(() => null),
          );
        }
      }
      for (const [i, f] of group.entries()) {
        const outcome = outcomes[i];
        if (outcome === null || outcome === undefined) continue;
        await rememberApplied(this.#d.appliedHashes, trx, f, outcome.success);
        out.push([f, outcome]);
      }
    }
    return out;
  }

  /** Marks a feed failed after its retries (or a permanent error); `criticals` says why. */
  async fail(feedPk: string, critical: FeedCritical): Promise<Feed | null> {
    const row = await inTransaction(this.#d.db, async (trx) => {
      const r = await repo.markFailed(trx, feedPk, JSON.stringify([critical]));
      if (r !== undefined) await this.#emit(trx, r, await this.#d.shops.hasWebhook(r.shop_pk, trx));
      return r;
    });
    return row === undefined ? null : toFeed(row);
  }

  async #emit(trx: Executor, row: repo.FeedRow, hasWebhook: boolean): Promise<void> {
    await this.#d.webhooks.emit(
      trx,
      row.shop_pk,
      'feed.completed',
      {
        location: feedUrl(row.base_url, row.pk),
        pk: row.pk,
        shop_pk: row.shop_pk,
        state: row.state,
        status: statusOf[row.state as FeedState],
      },
      hasWebhook,
    );
  }
}
