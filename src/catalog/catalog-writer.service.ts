// Applies validated feed items to the catalog, a chunk at a time inside the caller's
// transaction, and says per item what happened. Re-applying the same items changes nothing.
// An item the database refuses (a value validation let through, a constraint) fails alone:
// the chunk is applied again in halves, each in a savepoint, down to that item, which gets an
// error entry while the others are applied.
import { inSavepoint, type Executor, type Trx } from '../db/database.ts';
import { isItemDataError } from '../errors.ts';
import { writeChildren } from './catalog-children.ts';
import * as w from './catalog-write.repository.ts';
import type { ImageInput, ImagePosition, ImageRef, ProductInput, ProductRef, ProductUpdate, VariationCreate, VariationUpdate } from './catalog.schemas.ts';
import { notFoundError, ok, productAttrs, type ChunkOutcome, type Indexed, type ItemError, type ItemSuccess } from './catalog-items.ts';
import { applyImageAdd, applyImageRemove, applyImageReorder } from './image-writer.ts';
import { applyImageDelete, applyImageReplace, applyVariationDelete, applyVariationUpdate } from './variation-writer.ts';

export type CatalogOperation =
  | 'product_create' | 'product_update' | 'product_delete'
  | 'variation_create' | 'variation_update' | 'variation_delete'
  | 'image_replace' | 'image_delete'
  | 'product_image_add' | 'product_image_reorder' | 'product_image_delete';

/** Operations whose items are images: applied whole (the set sent is one unit). */
export const IMAGE_OPERATIONS: ReadonlySet<CatalogOperation> = new Set(['image_replace', 'image_delete', 'product_image_add', 'product_image_reorder', 'product_image_delete']);
/** Operations whose items are variations: `product_pk` in their reports is the variation's. */
const VARIATION_OPERATIONS: ReadonlySet<CatalogOperation> = new Set(['variation_create', 'variation_update', 'variation_delete']);

export interface ApplyTarget {
  shopPk: number;
  productPk: number | null;
  variationPk: number | null;
}

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

export class CatalogWriter {
  /**
   * Applies one chunk of items of one operation (items are validated already) in a savepoint
   * of `trx`. When the database refuses an item's data the chunk is applied again in halves
   * (isolate), so that item alone fails; other errors fail the chunk (a transient one is retried).
   */
  async apply(trx: Trx, op: CatalogOperation, target: ApplyTarget, items: Indexed<unknown>[]): Promise<ChunkOutcome> {
    try {
      return await inSavepoint(trx, () => this.#applyAll(trx, op, target, items));
    } catch (error) {
      if (!isItemDataError(error)) throw error;
      return this.#isolate(trx, op, target, items, error);
    }
  }

  /**
   * Items of a chunk the database refused, applied again half by half (in order, so a later
   * item of a sku still wins) until each refusing item is alone: about 2 log2(n) applies for
   * one bad item in n. Paid only by a chunk that failed. An image set is one unit: it fails whole.
   */
  async #isolate(trx: Trx, op: CatalogOperation, target: ApplyTarget, items: Indexed<unknown>[], error: unknown): Promise<ChunkOutcome> {
    if (items.length === 1 || IMAGE_OPERATIONS.has(op)) return { success: [], errors: items.map((x) => refused(x, error, op, target)) };
    const half = Math.ceil(items.length / 2);
    const out: ChunkOutcome = { success: [], errors: [] };
    for (const part of [items.slice(0, half), items.slice(half)]) {
      const r = await this.apply(trx, op, target, part);
      out.success.push(...r.success);
      out.errors.push(...r.errors);
    }
    return out;
  }

  async #applyAll(db: Executor, op: CatalogOperation, target: ApplyTarget, items: Indexed<unknown>[]): Promise<ChunkOutcome> {
    switch (op) {
      case 'product_create': return this.#create(db, target.shopPk, items as Indexed<ProductInput>[]);
      case 'product_update': return this.#update(db, target.shopPk, items as Indexed<ProductUpdate>[]);
      case 'product_delete': return this.#delete(db, target.shopPk, items as Indexed<ProductRef>[]);
      case 'variation_create': return this.#createVariations(db, target, items as Indexed<VariationCreate>[]);
      case 'variation_update': return applyVariationUpdate(db, target, items as Indexed<VariationUpdate>[]);
      case 'variation_delete': return applyVariationDelete(db, target, items as Indexed<ImageRef>[]);
      case 'image_replace': return applyImageReplace(db, target, items as Indexed<ImageRef>[]);
      case 'image_delete': return applyImageDelete(db, target, items as Indexed<ImageRef>[]);
      case 'product_image_add': return applyImageAdd(db, target, items as Indexed<ImageInput>[]);
      case 'product_image_reorder': return applyImageReorder(db, target, items as Indexed<ImagePosition>[]);
      case 'product_image_delete': return applyImageRemove(db, target, items as Indexed<ImageRef>[]);
    }
  }

  async #create(db: Executor, shopPk: number, items: Indexed<ProductInput>[]): Promise<ChunkOutcome> {
    // One row per sku (the last one sent wins): a statement may not touch a row twice.
    const bySku = new Map<string, ProductInput>();
    for (const { item } of items) bySku.set(item.sku, item);
    const { pks, fresh } = await w.upsertProducts(db, shopPk, [...bySku.values()].map((p) => ({
      sku: p.sku, name: p.name, price: p.price, stock: p.stock, attrs: JSON.stringify(productAttrs(p).set),
    })));
    const children = await writeChildren(db, [...bySku.values()].map((p) => ({ productPk: pks.get(p.sku)!, images: p.images, variations: p.variations })), fresh);
    return {
      success: items.map(({ index, item }) => {
        const pk = pks.get(item.sku)!;
        return ok(index, {
          sku: item.sku,
          product_pk: pk,
          variation_pks: (item.variations ?? []).map((v) => children.variationPk(pk, v.sku)),
          images: children.images.get(pk) ?? [],
        });
      }),
      errors: [],
    };
  }

  /** Finds the products named by pk or sku; an item naming none (or a deleted one unless allowed) is an error. */
  async #resolve<T extends ProductRef>(db: Executor, shopPk: number, items: Indexed<T>[], deletedOk: boolean) {
    const rows = await w.findProducts(db, shopPk, items.flatMap(({ item }) => (item.pk === undefined ? [] : [item.pk])), items.flatMap(({ item }) => (item.pk === undefined && item.sku !== undefined ? [item.sku] : [])));
    const byPk = new Map(rows.map((r) => [r.pk, r]));
    const bySku = new Map(rows.map((r) => [r.sku, r]));
    const found: (Indexed<T> & { pk: number; sku: string; deleted: boolean })[] = [];
    const errors: ItemError[] = [];
    for (const { index, item } of items) {
      const row = item.pk !== undefined ? byPk.get(item.pk) : bySku.get(item.sku!);
      const by = item.pk !== undefined ? 'pk' : 'sku';
      if (row === undefined || (row.deleted_at !== null && !deletedOk)) {
        errors.push(notFoundError(index, `/${index}/${by}`, `Product ${by} ${String(item[by])} was not found in this shop.`, { sku: item.sku, product_pk: item.pk }));
      } else if (item.pk !== undefined && item.sku !== undefined && item.sku !== row.sku) {
        errors.push({ index, product_pk: item.pk, sku: item.sku, pointer: `/${index}/sku`, code: 'sku_mismatch', message: `Product ${row.pk} has sku ${row.sku}; a sku cannot be changed.` });
      } else {
        found.push({ index, item, pk: row.pk, sku: row.sku, deleted: row.deleted_at !== null });
      }
    }
    return { found, errors };
  }

  async #update(db: Executor, shopPk: number, items: Indexed<ProductUpdate>[]): Promise<ChunkOutcome> {
    const { found, errors } = await this.#resolve(db, shopPk, items, false);
    // Several updates of one product in a chunk fold into one, in order.
    const patches = new Map<number, Omit<w.ProductPatchRow, 'attrs' | 'drop'> & { set: Record<string, unknown>; drop: Set<string> }>();
    for (const { pk, item } of found) {
      const p = patches.get(pk) ?? { pk, name: null, price: null, stock: null, set: {}, drop: new Set() };
      p.name = item.name ?? p.name;
      p.price = item.price ?? p.price;
      p.stock = item.stock ?? p.stock;
      const attrs = productAttrs(item);
      for (const k of Object.keys(attrs.set)) p.drop.delete(k);
      for (const k of attrs.remove) delete p.set[k];
      Object.assign(p.set, attrs.set);
      for (const k of attrs.remove) p.drop.add(k);
      patches.set(pk, p);
    }
    await w.patchProducts(db, [...patches.values()].map(({ set, drop, ...p }) => ({ ...p, attrs: JSON.stringify(set), drop: JSON.stringify([...drop]) })));
    const children = await writeChildren(db, found.map(({ pk, item }) => ({ productPk: pk, images: item.images, variations: item.variations })));
    return {
      success: found.map(({ index, pk, sku, item }) => ok(index, {
        sku,
        product_pk: pk,
        variation_pks: (item.variations ?? []).map((v) => children.variationPk(pk, v.sku)),
        images: children.images.get(pk) ?? [],
      })),
      errors,
    };
  }

  async #delete(db: Executor, shopPk: number, items: Indexed<ProductRef>[]): Promise<ChunkOutcome> {
    const { found, errors } = await this.#resolve(db, shopPk, items, true);
    await w.softDeleteProducts(db, [...new Set(found.filter((f) => !f.deleted).map((f) => f.pk))]);
    return { success: found.map(({ index, pk, sku }) => ok(index, { sku, product_pk: pk })), errors };
  }

  async #createVariations(db: Executor, target: ApplyTarget, items: Indexed<VariationCreate>[]): Promise<ChunkOutcome> {
    const productPk = target.productPk!;
    if (!(await productAlive(db, target.shopPk, productPk))) return productGone(items, productPk, true);
    const children = await writeChildren(db, [{ productPk, variations: items.map(({ item }) => item) }]);
    const success: ItemSuccess[] = [];
    for (const { index, item } of items) {
      const vpk = children.variationPk(productPk, item.sku);
      success.push(ok(index, { sku: item.sku, product_pk: vpk, parent_pk: productPk, variation_pk: vpk, images: await children.variationImages(vpk) }));
    }
    return { success, errors: [] };
  }
}

export async function productAlive(db: Executor, shopPk: number, productPk: number): Promise<boolean> {
  const rows = await w.findProducts(db, shopPk, [productPk], []);
  return rows.length === 1 && rows[0]!.deleted_at === null;
}

/** The product was deleted after the feed was accepted: every item fails. */
export const productGone = (items: Indexed<unknown>[], productPk: number, variations = false): ChunkOutcome => ({
  success: [],
  errors: items.map(({ index }) => notFoundError(index, `/${index}`, `Product ${productPk} was not found in this shop.`, variations ? { parent_pk: productPk } : { product_pk: productPk })),
});
