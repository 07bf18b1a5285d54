// Product create, update and delete, for a chunk of feed items at once.
import type { Executor } from '../../db/database.ts';
import type { ProductInput, ProductRef, ProductUpdate } from '../catalog.schemas.ts';
import { writeChildren } from './children.ts';
import { foldAttrs, notFoundError, ok, productAttrs, type ApplyTarget, type ChunkOutcome, type Indexed, type ItemError } from './items.ts';
import * as w from './write.repository.ts';

export async function applyProductCreate(
  db: Executor,
  { shopPk }: ApplyTarget,
  items: Indexed<ProductInput>[],
  merge = false,
): Promise<ChunkOutcome> {
  // One row per sku (the last one sent wins): a statement may not touch a row twice.
  const bySku = new Map<string, ProductInput>();
  for (const { item } of items) bySku.set(item.sku, item);
  const { pks, fresh } = await w.upsertProducts(
    db,
    shopPk,
    [...bySku.values()].map((p) => ({
      sku: p.sku,
      name: p.name,
      price: p.price,
      stock: p.stock,
      attrs: JSON.stringify(productAttrs(p).set),
    })),
  );
  const children = await writeChildren(
    db,
    [...bySku.values()].map((p) => ({ productPk: pks.get(p.sku)!, images: p.images, variations: p.variations })),
    fresh,
    merge,
  );
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
async function resolve<T extends ProductRef>(db: Executor, shopPk: number, items: Indexed<T>[], deletedOk: boolean) {
  const rows = await w.findProducts(
    db,
    shopPk,
    items.flatMap(({ item }) => (item.pk === undefined ? [] : [item.pk])),
    items.flatMap(({ item }) => (item.pk === undefined && item.sku !== undefined ? [item.sku] : [])),
  );
  const byPk = new Map(rows.map((r) => [r.pk, r]));
  const bySku = new Map(rows.map((r) => [r.sku, r]));
  const found: (Indexed<T> & { pk: number; sku: string; deleted: boolean })[] = [];
  const errors: ItemError[] = [];
  for (const { index, item } of items) {
    const row = item.pk !== undefined ? byPk.get(item.pk) : bySku.get(item.sku!);
    const by = item.pk !== undefined ? 'pk' : 'sku';
    if (row === undefined || (row.deleted_at !== null && !deletedOk)) {
      errors.push(
        notFoundError(index, `/${index}/${by}`, `Product ${by} ${String(item[by])} was not found in this shop.`, {
          sku: item.sku,
          product_pk: item.pk,
        }),
      );
    } else if (item.pk !== undefined && item.sku !== undefined && item.sku !== row.sku) {
      errors.push({
        index,
        product_pk: item.pk,
        sku: item.sku,
        pointer: `/${index}/sku`,
        code: 'sku_mismatch',
        message: `Product ${row.pk} has sku ${row.sku}; a sku cannot be changed.`,
      });
    } else {
      found.push({ index, item, pk: row.pk, sku: row.sku, deleted: row.deleted_at !== null });
    }
  }
  return { found, errors };
}

export async function applyProductUpdate(
  db: Executor,
  { shopPk }: ApplyTarget,
  items: Indexed<ProductUpdate>[],
  merge = false,
): Promise<ChunkOutcome> {
  const { found, errors } = await resolve(db, shopPk, items, false);
  // Several updates of one product in a chunk fold into one, in order.
  const patches = new Map<number, Omit<w.ProductPatchRow, 'attrs' | 'drop'> & { set: Record<string, unknown>; drop: Set<string> }>();
  for (const { pk, item } of found) {
    const p = patches.get(pk) ?? { pk, name: null, price: null, stock: null, set: {}, drop: new Set() };
    p.name = item.name ?? p.name;
    p.price = item.price ?? p.price;
    p.stock = item.stock ?? p.stock;
    foldAttrs(p, productAttrs(item));
    patches.set(pk, p);
  }
  await w.patchProducts(
    db,
    [...patches.values()].map(({ set, drop, ...p }) => ({ ...p, attrs: JSON.stringify(set), drop: JSON.stringify([...drop]) })),
  );
  const children = await writeChildren(
    db,
    found.map(({ pk, item }) => ({ productPk: pk, images: item.images, variations: item.variations })),
    new Set(),
    merge,
  );
  return {
    success: found.map(({ index, pk, sku, item }) =>
      ok(index, {
        sku,
        product_pk: pk,
        variation_pks: (item.variations ?? []).map((v) => children.variationPk(pk, v.sku)),
        images: children.images.get(pk) ?? [],
      }),
    ),
    errors,
  };
}

/** A merge item: the fields a file carries, and what a new product lacking a required field takes. */
export interface ProductMerge {
  product: ProductUpdate & { sku: string };
  defaults?: Partial<Pick<ProductInput, 'name' | 'price' | 'stock'>>;
}

const REQUIRED = ['name', 'price', 'stock'] as const;

/**
 * Merge (a catalog file read with a preset): an existing product takes the fields sent and keeps
 * the others (as an update by sku); a new (or deleted) one is created from the fields sent over
 * the defaults, and is refused when a required field is in neither.
 */
export async function applyProductMerge(db: Executor, target: ApplyTarget, items: Indexed<ProductMerge>[]): Promise<ChunkOutcome> {
  const { shopPk } = target;
  const alive = new Set(
    (
      await w.findProducts(
        db,
        shopPk,
        [],
        items.map(({ item }) => item.product.sku),
      )
    )
      .filter((r) => r.deleted_at === null)
      .map((r) => r.sku),
  );
  const updates: Indexed<ProductUpdate>[] = [];
  const creates: Indexed<ProductInput>[] = [];
  const errors: ItemError[] = [];
  for (const { index, item } of items) {
    if (alive.has(item.product.sku)) {
      updates.push({ index, item: item.product });
      continue;
    }
    const full = { ...item.defaults, ...item.product } as Partial<ProductInput>;
    const missing = REQUIRED.find((f) => full[f] === undefined);
    if (missing === undefined) creates.push({ index, item: full as ProductInput });
    else
      errors.push({
        index,
        sku: item.product.sku,
        pointer: `/${index}/${missing}`,
        code: 'required',
        message: `A new product needs ${missing}: the file does not carry it and the connector has no default for it.`,
      });
  }
  // An update first: a sku created by this chunk is then not updated again by it.
  const u = await applyProductUpdate(db, target, updates, true);
  const c = await applyProductCreate(db, target, creates, true);
  return {
    success: [...u.success, ...c.success].sort((a, b) => a.index - b.index),
    errors: [...u.errors, ...c.errors, ...errors].sort((a, b) => a.index - b.index),
  };
}

export async function applyProductDelete(db: Executor, { shopPk }: ApplyTarget, items: Indexed<ProductRef>[]): Promise<ChunkOutcome> {
  const { found, errors } = await resolve(db, shopPk, items, true);
  await w.softDeleteProducts(db, [...new Set(found.filter((f) => !f.deleted).map((f) => f.pk))]);
  return { success: found.map(({ index, pk, sku }) => ok(index, { sku, product_pk: pk })), errors };
}
