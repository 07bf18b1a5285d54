// Submitting feeds: every catalog write becomes one. submit() validates the items and writes
// the feed, its payload and its job in one transaction (shared with the submits waiting at the
// same time). submitValidated() does the same for items a trusted caller in this process
// already validated with the same rules (validateItems: the catalog-file connector), handed
// over as JSON text; no route calls it, so a request's items are always validated here, and a
// caller that validates elsewhere reports its invalid items itself. Every feed, of one item or
// of thousands, goes through the same queue and the same apply path (feed-process.service.ts).
import { randomUUID } from 'node:crypto';
import { FEED_OPERATIONS } from '../catalog/apply/operations.ts';
import type { CatalogService } from '../catalog/catalog.service.ts';
import { validateItems, type ItemWarning } from '../catalog/product-validation.ts';
import type { Config } from '../config.ts';
import { configuredBaseUrl } from '../system/base-url.ts';
import { contentHash } from '../catalog/content-hash.ts';
import type { Db } from '../db/database.ts';
import { GroupCommit } from '../db/group-commit.ts';
import { AppError, badRequest, MAX_LISTED_ERRORS } from '../errors.ts';
import type { JobSender } from '../jobs/job-map.ts';
import { toFeed } from './feeds.mapper.ts';
import * as repo from './feeds.repository.ts';
import type { Feed, FeedType } from './feeds.schemas.ts';

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

export interface FeedSubmitDeps {
  db: Db;
  jobs: JobSender;
  catalog: CatalogService;
  config: Pick<Config, 'publicUrl' | 'host' | 'port' | 'maxItemsPerRequest'>;
}

/** Feeds whose skus are listed with their payload (the search by sku): those of products. */
const listsSkus = (type: FeedType): boolean => FEED_OPERATIONS[type].report === 'product';

export class FeedSubmitService {
  readonly #d: FeedSubmitDeps;
  /**
   * Feed creation is group-committed: concurrent submits share one transaction (one statement
   * for their feeds and payloads, one for their jobs), and each caller is answered once that
   * commit is done. It buys the accept rate of one-product writes (one commit for many); it
   * costs a caller the wait for the transaction already in flight (docs/benchmarks.md).
   */
  readonly #commits: GroupCommit<repo.NewFeed & repo.NewPayload, repo.FeedRow>;
  constructor(deps: FeedSubmitDeps) {
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
}
