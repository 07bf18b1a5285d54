// The apply engine: applies validated feed items to the catalog, a chunk at a time inside the
// caller's transaction, and says per item what happened. Re-applying the same items changes
// nothing. An item the database refuses (a value validation let through, a constraint) fails
// alone: the chunk is applied again in halves, each in a savepoint, down to that item, which
// gets an error entry while the others are applied.
import { inSavepoint, type Trx } from '../../db/database.ts';
import { isItemDataError } from '../../errors.ts';
import type { ApplyTarget, ChunkOutcome, Indexed, ItemError } from './items.ts';
import { FEED_OPERATIONS, type FeedOperationName } from './operations.ts';

/** The error entry of an item the database refused. */
function refused({ index, item }: Indexed<unknown>, error: unknown, op: FeedOperationName, target: ApplyTarget): ItemError {
  const raw = (typeof item === 'object' && item !== null ? item : {}) as { sku?: unknown; pk?: unknown; product?: { sku?: unknown } };
  // A merge item is {product, defaults}: its sku is the product's.
  const o = op === 'product_merge' ? ((raw.product ?? {}) as { sku?: unknown; pk?: unknown }) : raw;
  const e = error as { code?: string; message?: string };
  const pk = typeof o.pk === 'number' ? o.pk : undefined;
  const report = FEED_OPERATIONS[op].report;
  return {
    index,
    ...(typeof o.sku === 'string' ? { sku: o.sku } : {}),
    ...(report === 'image'
      ? { product_pk: target.productPk!, ...(pk === undefined ? {} : { image_pk: pk }) }
      : { ...(pk === undefined ? {} : { product_pk: pk }), ...(report === 'variation' ? { parent_pk: target.productPk! } : {}) }),
    pointer: `/${index}`,
    code: 'not_storable',
    message: `The database refused this item (SQLSTATE ${e.code}): ${e.message}.`,
  };
}

/**
 * Applies one chunk of items of one operation (items are validated already) in a savepoint
 * of `trx`. When the database refuses an item's data the chunk is applied again in halves
 * (isolate), so that item alone fails; other errors fail the chunk (a transient one is retried).
 */
export async function applyChunk(trx: Trx, op: FeedOperationName, target: ApplyTarget, items: Indexed<unknown>[]): Promise<ChunkOutcome> {
  try {
    return await inSavepoint(trx, () => FEED_OPERATIONS[op].apply(trx, target, items));
  } catch (error) {
    if (!isItemDataError(error)) throw error;
    return isolate(trx, op, target, items, error);
  }
}

/**
 * Items of a chunk the database refused, applied again half by half (in order, so a later
 * item of a sku still wins) until each refusing item is alone: about 2 log2(n) applies for
 * one bad item in n. Paid only by a chunk that failed. An operation applied whole (an image
 * set) fails whole.
 */
async function isolate(
  trx: Trx,
  op: FeedOperationName,
  target: ApplyTarget,
  items: Indexed<unknown>[],
  error: unknown,
): Promise<ChunkOutcome> {
  if (items.length === 1 || FEED_OPERATIONS[op].chunkSize === 'whole')
    return { success: [], errors: items.map((x) => refused(x, error, op, target)) };
  const half = Math.ceil(items.length / 2);
  const out: ChunkOutcome = { success: [], errors: [] };
  for (const part of [items.slice(0, half), items.slice(half)]) {
    const r = await applyChunk(trx, op, target, part);
    out.success.push(...r.success);
    out.errors.push(...r.errors);
  }
  return out;
}
