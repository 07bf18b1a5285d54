// The catalog pull every API connector shares: read the pages of products the system changed
// since the last accepted cursor, send each page's changed products as one feed, and move the
// cursor only when every page was accepted. A run that fails half-way leaves the cursor where
// it was: the next run reads those pages again, and products already applied are found
// unchanged by the delta (content hash) and not sent twice. A connector supplies the pages
// (its client) and the mapping (its map.ts); this file holds the rules.
import { canonicalJson, hashOfCanonical } from '../../../src/catalog/content-hash.ts';
import { validateProducts } from '../../../src/catalog/product-validation.ts';
import type { ConnectorContext } from '../contract.ts';
import type { OnDelete, PullOptions } from './options.ts';

/** One product as the system gave it, mapped to the products POST's shape. */
export interface PulledProduct {
  product: Record<string, unknown>;
  /** Deleted, disabled or archived in the system (on_delete says what happens here). */
  deleted: boolean;
  /** When the system last changed it (ISO 8601 with a zone): the cursor follows these. */
  updatedAt: string | null;
}

/** A system's products changed after `since` (null: all of them), a page at a time. */
export interface PullSource {
  pages(since: Date | null): AsyncIterable<PulledProduct[]>;
}

/** State key of the cursor: the latest change time accepted, ISO 8601 UTC. */
export const CURSOR_KEY = 'cursor';

/** A deleted product as on_delete=out_of_stock keeps it: nothing to sell, everything else as it was. */
export function outOfStock(product: Record<string, unknown>): Record<string, unknown> {
  const variations = Array.isArray(product.variations)
    ? (product.variations as Record<string, unknown>[]).map((v) => ({ ...v, stock: 0, availability: 'out_of_stock' }))
    : undefined;
  return { ...product, stock: 0, availability: 'out_of_stock', ...(variations === undefined ? {} : { variations }) };
}

/** Runs one pull: counts pages_fetched, products_changed/unchanged/refused/deleted, deletions_ignored. */
export async function pullCatalog(ctx: ConnectorContext<PullOptions>, source: PullSource): Promise<void> {
  const stored = ctx.full ? undefined : await ctx.state.get<string>(CURSOR_KEY);
  const cursor = stored === undefined ? null : new Date(stored);
  const since = cursor === null ? null : new Date(cursor.getTime() - ctx.options.overlap_seconds * 1000);
  let latest = cursor;
  ctx.log.info({ since: since?.toISOString() ?? null, full: ctx.full }, 'catalog pull started');
  for await (const page of prefetched(source.pages(since))) {
    ctx.report.count('pages_fetched');
    await acceptPage(ctx, page, ctx.options.on_delete);
    for (const p of page) {
      const at = p.updatedAt === null ? null : new Date(p.updatedAt);
      if (at !== null && !Number.isNaN(at.getTime()) && (latest === null || at > latest)) latest = at;
    }
    // Shutdown between pages: the cursor stays, the next run reads again from it.
    ctx.signal.throwIfAborted();
  }
  if (latest !== null && (cursor === null || latest > cursor || ctx.full)) await ctx.state.set(CURSOR_KEY, latest.toISOString());
}

/**
 * The pages with the next one asked for while this one is accepted: the API's latency overlaps
 * the validation and feed of the page before (one page more held in memory; pages stay in order,
 * and a failed fetch still surfaces before the cursor can move).
 */
async function* prefetched<T>(pages: AsyncIterable<T>): AsyncGenerator<T> {
  const it = pages[Symbol.asyncIterator]();
  let next = it.next();
  try {
    for (;;) {
      const r = await next;
      if (r.done === true) return;
      next = it.next();
      // Handled when awaited; a rejection meanwhile must not count as unhandled.
      next.catch(() => undefined);
      yield r.value;
    }
  } finally {
    await it.return?.();
  }
}

/** A page's products into the catalog: validated, compared with what was applied, the changed ones as one feed. */
async function acceptPage(ctx: ConnectorContext, page: PulledProduct[], onDelete: OnDelete): Promise<void> {
  const upserts: Record<string, unknown>[] = [];
  const deletes: string[] = [];
  for (const p of page) {
    if (!p.deleted) upserts.push(p.product);
    else if (onDelete === 'out_of_stock') upserts.push(outOfStock(p.product));
    else if (onDelete === 'delete' && typeof p.product.sku === 'string') deletes.push(p.product.sku);
    else ctx.report.count('deletions_ignored');
  }
  // An empty list is not a body validateProducts accepts: nothing to validate.
  const v = upserts.length === 0 ? { valid: [], errors: [] } : validateProducts(upserts, { inPlace: true });
  const refused = new Set(v.errors.map((e) => Number(/^\/(\d+)/.exec(e.pointer)?.[1] ?? -1)));
  if (refused.size > 0) {
    ctx.report.count('products_refused', refused.size);
    for (const i of refused) {
      const errors = v.errors
        .filter((e) => e.pointer.startsWith(`/${i}/`) || e.pointer === `/${i}`)
        .map((e) => `${e.pointer}: ${e.message}`);
      ctx.log.warn({ sku: upserts[i]?.sku, errors }, "product refused: the system's data breaks the products POST's rules");
    }
  }
  const hashed = v.valid.map(({ product }) => {
    const json = canonicalJson(product);
    return { sku: product.sku, product: json, hash: hashOfCanonical(json) };
  });
  const changed = hashed.length === 0 ? [] : await ctx.delta.changed(ctx.shopPk!, hashed);
  ctx.report.count('products_unchanged', hashed.length - changed.length);
  if (changed.length > 0) {
    const feed = await ctx.catalog.submitValidated(changed.map(({ sku, product, hash }) => ({ sku, json: product, hash })));
    ctx.report.feed(feed.pk);
    ctx.report.count('products_changed', changed.length);
  }
  if (deletes.length > 0) {
    const feed = await ctx.catalog.deleteProducts(deletes);
    ctx.report.feed(feed.pk);
    ctx.report.count('products_deleted', deletes.length);
  }
}
