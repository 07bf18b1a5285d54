// Feeds: every catalog write becomes one. submit() validates the items and writes the feed,
// its payload and its job in one transaction (shared with the submits waiting at the same
// time). submitValidated() does the same for items a trusted caller in this process already
// validated with the same rules (validateItems: the catalog-file connector),
// handed over as JSON text; no route calls it, so a request's items are always validated
// here, and a caller that validates elsewhere reports its invalid items itself. process()
// applies the items a chunk at a time (each chunk, its report and the counts commit together,
// so a rerun resumes after the last committed chunk and never applies or reports an item
// twice). Every feed, of one item or of thousands, goes through the same queue and the same
// apply path.
import { randomUUID } from 'node:crypto';
import { applyChunk } from '../catalog/apply/apply-engine.ts';
import type { ChunkOutcome, Indexed, ItemSuccess, ReportWarning } from '../catalog/apply/items.ts';
import { chunkSizeOf, FEED_OPERATIONS } from '../catalog/apply/operations.ts';
import type { CatalogService } from '../catalog/catalog.service.ts';
import { validateItems, type ItemWarning } from '../catalog/product-validation.ts';
import type { Config } from '../config.ts';
import { configuredBaseUrl } from '../system/base-url.ts';
import { contentHash } from '../catalog/content-hash.ts';
import { metrics } from '../metrics/metrics.ts';
import { inTransaction, limitStatements, withTimeLimit, type Db, type Executor, type Trx } from '../db/database.ts';
import { ownerGone, thisOwner } from '../system/process-owner.ts';
import { GroupCommit } from '../db/group-commit.ts';
import { AppError, badRequest, conflict, MAX_LISTED_ERRORS, notFound, unavailable } from '../errors.ts';
import type { JobSender } from '../jobs/job-map.ts';
import type { ShopService } from '../shops/shops.service.ts';
import type { WebhookService } from '../webhooks/webhooks.service.ts';
import type { AppliedHashes } from './feed-ports.ts';
import { upgradeError, upgradeSuccess, withWarnings } from './feed-report.ts';
import { feedUrl, statusOf } from './feeds.presenter.ts';
import * as repo from './feeds.repository.ts';
import type { Feed, FeedCritical, FeedFilter, FeedState, FeedType } from './feeds.schemas.ts';

export interface SubmitInput {
  shopPk: number;
  type: FeedType;
  items: unknown[];
  /** 'key:<prefix>' for the API, 'connector:<name>' for connectors. */
  source: string;
  productPk?: number;
  variationPk?: number;
  /** {base_url} of the feed's URL; default PUBLIC_URL, else http://HOST:PORT. */
  baseUrl?: string;
  /** The request body was one object: 400 pointers carry no index (`/price`). */
  single?: boolean;
  /**
   * Keep each item's content hash (a connector's delta detection, product_create): the worker
   * records the hashes of the items it applies, in the transaction that applies them.
   */
  contentHashes?: boolean;
}

/**
 * An item that already passed validateItems for its feed's kind (no errors; unknown fields
 * removed, reported by the caller), as its JSON text. Built by trusted code in this process,
 * never from a request.
 */
export interface ValidatedItem {
  json: string;
  /** The item's sku (product feeds): listed with the payload, as submit() does. */
  sku?: string;
  /** Its content hash (contentHash of its JSON), recorded once the item is applied. */
  hash?: string;
}

export interface ValidatedSubmitInput extends Omit<SubmitInput, 'items' | 'single'> {
  items: ValidatedItem[];
}

export interface FeedServiceDeps {
  db: Db;
  jobs: JobSender;
  catalog: CatalogService;
  shops: ShopService;
  webhooks: WebhookService;
  /** The connector host's content hashes, recorded as a connector feed's items are applied. */
  appliedHashes: AppliedHashes;
  config: Pick<Config, 'publicUrl' | 'host' | 'port' | 'maxItemsPerRequest'>;
}

/**
 * The time limit of each statement while a feed is applied (a chunk of 1,000 items), ms: long
 * work, not bound by WAYBILL_DB_TIMEOUT_MS.
 */
export const FEED_CHUNK_TIME_LIMIT_MS = 120_000;

/** Feeds whose skus are listed with their payload (the search by sku): those of products. */
const listsSkus = (type: FeedType): boolean => FEED_OPERATIONS[type].report === 'product';
/** Feeds whose items carry a connector's content hash (delta detection). */
const HASHED: ReadonlySet<string> = new Set(['product_create', 'product_merge']);
/**
 * Feeds of at most this many items are applied together, a batch of them in one transaction
 * (applyBatch); larger ones a chunk per transaction, each feed on its own (process).
 */
export const SMALL_FEED_ITEMS = 100;
/** A feed of at least this many items, once done, queues catalog.tidy (VACUUM ANALYZE of the catalog). */
export const TIDY_AFTER_ITEMS = 500;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const iso = (d: Date | null): string | null => (d === null ? null : d.toISOString());

const toFeed = (row: repo.FeedRow): Feed => ({
  pk: row.pk,
  shop_pk: row.shop_pk,
  type: row.type as FeedType,
  state: row.state as FeedState,
  source: row.source,
  product_pk: row.product_pk,
  variation_pk: row.variation_pk,
  created_at: row.created_at.toISOString(),
  started_at: iso(row.started_at),
  finished_at: iso(row.finished_at),
  counts: { total: row.total, processed: row.processed, succeeded: row.succeeded, failed: row.failed, warnings: row.warnings },
});

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

export class FeedService {
  readonly #d: FeedServiceDeps;
  /**
   * Feed creation is group-committed: concurrent submits share one transaction (one statement
   * for their feeds and payloads, one for their jobs), and each caller is answered once that
   * commit is done. It buys the accept rate of one-product writes (one commit for many); it
   * costs a caller the wait for the transaction already in flight (docs/benchmarks.md).
   */
  readonly #commits: GroupCommit<repo.NewFeed & repo.NewPayload, repo.FeedRow>;
  /** This process as the owner of the feeds it processes (leases). */
  readonly #owner = thisOwner();
  constructor(deps: FeedServiceDeps) {
    this.#d = deps;
    this.#commits = new GroupCommit({
      db: deps.db,
      write: async (trx, feeds): Promise<repo.FeedRow[]> => {
        const rows = await repo.insertFeeds(trx, feeds);
        await deps.jobs.sendMany(
          trx,
          'feed.process',
          rows.map((r) => ({ data: { feedPk: r.pk }, group: { id: String(r.shop_pk), tier: r.shop_tier } })),
        );
        return rows;
      },
    });
  }

  get defaultBaseUrl(): string {
    return configuredBaseUrl(this.#d.config);
  }

  /** Validates and records a feed, and enqueues its processing, all or nothing. */
  async submit(input: SubmitInput): Promise<Feed> {
    const max = this.#d.config.maxItemsPerRequest;
    if (input.items.length > max) {
      throw new AppError(
        'too_many_items',
        413,
        `The request has ${input.items.length} items; one request takes at most ${max} (WAYBILL_MAX_ITEMS). Split it.`,
        { extra: { max_items: max } },
      );
    }
    if (input.type === 'product_merge')
      throw new AppError('invalid_feed', 500, 'A product_merge feed is built by a trusted caller (submitValidated).');
    await this.#checkInput(input, input.items.length);
    const v = validateItems(FEED_OPERATIONS[input.type].items, input.items, input.single === true, { maxErrors: MAX_LISTED_ERRORS });
    if (v.errorsTotal > 0) {
      throw badRequest(`The request body has ${v.errorsTotal} invalid field${v.errorsTotal === 1 ? '' : 's'}.`, v.errors, v.errorsTotal);
    }
    const warnings: ItemWarning[] = input.single === true ? v.warnings.map((w) => ({ ...w, pointer: `/0${w.pointer}` })) : v.warnings;
    const items = v.valid.map((x) => x.item);
    const skus = listsSkus(input.type) ? items.flatMap((i) => (typeof i.sku === 'string' ? [i.sku] : [])) : [];
    return this.#record(input, items, warnings, skus, input.contentHashes === true ? items.map(contentHash) : null);
  }

  /**
   * Records a feed of items already validated by validateItems in this process (see
   * ValidatedItem), and enqueues its processing: submit() without validating again. For
   * trusted in-process callers only; HTTP routes use submit().
   */
  async submitValidated(input: ValidatedSubmitInput): Promise<Feed> {
    await this.#checkInput(input, input.items.length);
    const skus = listsSkus(input.type) ? input.items.flatMap((i) => (i.sku === undefined ? [] : [i.sku])) : [];
    const hashes = input.items.some((i) => i.hash !== undefined) ? input.items.map((i) => i.hash ?? null) : null;
    return this.#record(input, { json: input.items.map((i) => i.json) }, [], skus, hashes);
  }

  /** What a feed needs besides valid items: its product (and variation), and items. */
  async #checkInput(input: Omit<SubmitInput, 'items'>, count: number): Promise<void> {
    const { shopPk, type } = input;
    const op = FEED_OPERATIONS[type];
    if (op.scope !== 'shop' && input.productPk === undefined) throw new AppError('invalid_feed', 500, `A ${type} feed needs a product.`);
    if (op.scope === 'variation') {
      if (input.variationPk === undefined) throw new AppError('invalid_feed', 500, `A ${type} feed needs a variation.`);
      await this.#d.catalog.assertVariation(shopPk, input.productPk!, input.variationPk);
    } else if (op.scope === 'product') {
      await this.#d.catalog.assertProduct(shopPk, input.productPk!);
    }
    if (count === 0 && op.mayBeEmpty !== true) {
      throw badRequest('Send at least one item.', [{ pointer: '', code: 'too_few', message: 'must contain at least one item' }]);
    }
  }

  async #record(
    input: Omit<SubmitInput, 'items'>,
    items: repo.NewPayload['items'],
    warnings: ItemWarning[],
    skus: string[],
    hashes: repo.NewPayload['hashes'],
  ): Promise<Feed> {
    const row = await this.#commits.submit({
      pk: randomUUID(),
      shop_pk: input.shopPk,
      type: input.type,
      source: input.source,
      product_pk: input.productPk ?? null,
      variation_pk: input.variationPk ?? null,
      base_url: input.baseUrl ?? this.defaultBaseUrl,
      total: Array.isArray(items) ? items.length : items.json.length,
      items,
      warnings,
      skus,
      hashes,
    });
    this.#d.jobs.wake?.('feed.process');
    return { ...toFeed(row), result: { success: [], errors: [], criticals: [] } };
  }

  /** A shop's feed with its results; 404 for another shop's or an unknown one. */
  async get(shopPk: number, feedPk: string): Promise<Feed> {
    const feed = await this.getAny(feedPk);
    if (feed.shop_pk !== shopPk) throw notFound(`Feed ${feedPk}`);
    return feed;
  }

  /** Any shop's feed with its results (admin). */
  async getAny(feedPk: string): Promise<Feed> {
    const row = UUID.test(feedPk) ? await repo.findFeed(this.#d.db, feedPk) : undefined;
    if (row === undefined) throw notFound(`Feed ${feedPk}`);
    const chunks = await repo.results(this.#d.db, feedPk);
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
    const [rows, count] = await Promise.all([repo.listFeeds(this.#d.db, filter), repo.countFeeds(this.#d.db, where)]);
    return { count, results: rows.map(toFeed) };
  }

  /** Queues a feed that failed (or got stuck) again; processing resumes after its last committed chunk. */
  async retry(feedPk: string): Promise<Feed> {
    const row = UUID.test(feedPk) ? await repo.findFeed(this.#d.db, feedPk) : undefined;
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
    // once (recover). The lock is the chunks' own NOWAIT lock: a feed another worker is in
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
          await this.#rememberApplied(trx, feed, outcome.success);
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
   * mid-batch leaves them to recover() like any other. Returns the feeds that need nothing more
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
        await this.#rememberApplied(trx, f, outcome.success);
        out.push([f, outcome]);
      }
    }
    return out;
  }

  /**
   * Hands the content hashes of a connector feed's applied items (its delta detection) to the
   * connector host's port, in the transaction that applied them: an item that failed, or a chunk rolled back, keeps the
   * product's old hash, so the connector sends it again next time.
   */
  async #rememberApplied(
    trx: Trx,
    feed: { shop_pk: number; type: string; payload_hashes: (string | null)[] | null },
    success: ItemSuccess[],
  ): Promise<void> {
    // A deleted product's hash is the content it had: kept, the same content created again
    // would look unchanged to a connector and never be sent.
    if (feed.type === 'product_delete') {
      await this.#d.appliedHashes.forget(trx, feed.shop_pk, [
        ...new Set(success.flatMap((s) => (typeof s.sku === 'string' ? [s.sku] : []))),
      ]);
      return;
    }
    const hashes = feed.payload_hashes;
    if (hashes === null || !HASHED.has(feed.type)) return;
    // By index: of two items of one sku, the later one is what the product now holds.
    const bySku = new Map<string, string>();
    for (const s of [...success].sort((a, b) => a.index - b.index)) {
      const hash = hashes[s.index];
      if (typeof s.sku === 'string' && typeof hash === 'string') bySku.set(s.sku, hash);
    }
    if (bySku.size > 0)
      await this.#d.appliedHashes.record(
        trx,
        feed.shop_pk,
        [...bySku].map(([sku, hash]) => ({ sku, hash })),
      );
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

  /** Deletes feeds older than `days` (default 30), in batches; returns how many. */
  async prune(days = 30): Promise<number> {
    let total = 0;
    for (let n = -1; n !== 0;) {
      n = await repo.pruneFeeds(this.#d.db, days, 1_000);
      total += n;
    }
    return total;
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
