// The apply engine: applies validated feed items to the catalog, a chunk at a time inside the
// caller's transaction, and says per item what happened. Re-applying the same items changes
// nothing. An item the database refuses (a value validation let through, a constraint) fails
// alone: the chunk is applied again in halves, each in a savepoint, down to that item, which
// gets an error entry while the others are applied.
import { inSavepoint, type Executor, type Trx } from '../../db/database.ts';
import { isItemDataError } from '../../errors.ts';
import type { ImageInput, ImagePosition, ImageRef, ProductInput, ProductRef, ProductUpdate, VariationCreate, VariationUpdate } from '../catalog.schemas.ts';
import { applyImageAdd, applyImageRemove, applyImageReorder } from './images.ts';
import type { ApplyTarget, ChunkOutcome, Indexed, ItemError } from './items.ts';
import { applyProductCreate, applyProductDelete, applyProductUpdate } from './products.ts';
import { applyImageDelete, applyImageReplace, applyVariationCreate, applyVariationDelete, applyVariationUpdate } from './variations.ts';

export type CatalogOperation =
  | 'product_create' | 'product_update' | 'product_delete'
  | 'variation_create' | 'variation_update' | 'variation_delete'
  | 'image_replace' | 'image_delete'
  | 'product_image_add' | 'product_image_reorder' | 'product_image_delete';

/** Operations whose items are images: applied whole (the set sent is one unit). */
export const IMAGE_OPERATIONS: ReadonlySet<CatalogOperation> = new Set(['image_replace', 'image_delete', 'product_image_add', 'product_image_reorder', 'product_image_delete']);
/** Operations whose items are variations: `product_pk` in their reports is the variation's. */
const VARIATION_OPERATIONS: ReadonlySet<CatalogOperation> = new Set(['variation_create', 'variation_update', 'variation_delete']);

/** The error entry of an item the database refused. */
function refused({ index, item }: Indexed<unknown>, error: unknown, op: CatalogOperation, target: ApplyTarget): ItemError {
  const o = (typeof item === 'object' && item !== null ? item : {}) as { sku?: unknown; pk?: unknown };
  const e = error as { code?: string; message?: string };
  const pk = typeof o.pk === 'number' ? o.pk : undefined;
  return {
    index,
    ...(typeof o.sku === 'string' ? { sku: o.sku } : {}),
    ...(IMAGE_OPERATIONS.has(op)
      ? { product_pk: target.productPk!, ...(pk === undefined ? {} : { image_pk: pk }) }
      : { ...(pk === undefined ? {} : { product_pk: pk }), ...(VARIATION_OPERATIONS.has(op) ? { parent_pk: target.productPk! } : {}) }),
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
export async function applyChunk(trx: Trx, op: CatalogOperation, target: ApplyTarget, items: Indexed<unknown>[]): Promise<ChunkOutcome> {
  try {
    return await inSavepoint(trx, () => applyAll(trx, op, target, items));
  } catch (error) {
    if (!isItemDataError(error)) throw error;
    return isolate(trx, op, target, items, error);
  }
}

/**
 * Items of a chunk the database refused, applied again half by half (in order, so a later
 * item of a sku still wins) until each refusing item is alone: about 2 log2(n) applies for
 * one bad item in n. Paid only by a chunk that failed. An image set is one unit: it fails whole.
 */
async function isolate(trx: Trx, op: CatalogOperation, target: ApplyTarget, items: Indexed<unknown>[], error: unknown): Promise<ChunkOutcome> {
  if (items.length === 1 || IMAGE_OPERATIONS.has(op)) return { success: [], errors: items.map((x) => refused(x, error, op, target)) };
  const half = Math.ceil(items.length / 2);
  const out: ChunkOutcome = { success: [], errors: [] };
  for (const part of [items.slice(0, half), items.slice(half)]) {
    const r = await applyChunk(trx, op, target, part);
    out.success.push(...r.success);
    out.errors.push(...r.errors);
  }
  return out;
}

function applyAll(db: Executor, op: CatalogOperation, target: ApplyTarget, items: Indexed<unknown>[]): Promise<ChunkOutcome> {
  switch (op) {
    case 'product_create': return applyProductCreate(db, target.shopPk, items as Indexed<ProductInput>[]);
    case 'product_update': return applyProductUpdate(db, target.shopPk, items as Indexed<ProductUpdate>[]);
    case 'product_delete': return applyProductDelete(db, target.shopPk, items as Indexed<ProductRef>[]);
    case 'variation_create': return applyVariationCreate(db, target, items as Indexed<VariationCreate>[]);
    case 'variation_update': return applyVariationUpdate(db, target, items as Indexed<VariationUpdate>[]);
    case 'variation_delete': return applyVariationDelete(db, target, items as Indexed<ImageRef>[]);
    case 'image_replace': return applyImageReplace(db, target, items as Indexed<ImageRef>[]);
    case 'image_delete': return applyImageDelete(db, target, items as Indexed<ImageRef>[]);
    case 'product_image_add': return applyImageAdd(db, target, items as Indexed<ImageInput>[]);
    case 'product_image_reorder': return applyImageReorder(db, target, items as Indexed<ImagePosition>[]);
    case 'product_image_delete': return applyImageRemove(db, target, items as Indexed<ImageRef>[]);
  }
}
