// Catalog reads: products of a shop (not deleted) with their images, variations and links.
import { sql } from 'kysely';
import type { Db, Executor } from '../db/database.ts';
import { softDeleteProducts } from './apply/write.repository.ts';

export interface ProductFilter {
  sku?: string;
  updatedSince?: Date;
  limit: number;
  offset: number;
  /** The products matching the filter, when known: a page in the later half is sought from the end. */
  total?: number;
}

const products = (db: Executor, shopPk: number, f: Omit<ProductFilter, 'limit' | 'offset'>) => {
  let q = db.selectFrom('products').where('shop_pk', '=', shopPk).where('deleted_at', 'is', null);
  if (f.sku !== undefined) q = q.where('sku', '=', f.sku);
  if (f.updatedSince !== undefined) q = q.where('updated_at', '>=', f.updatedSince);
  return q;
};

/**
 * A page of live products, by pk: the page's pks first, from an index-only scan of
 * products_shop_live_pk that skips the index entries before the page (from the end, for a page
 * in the later half when `total` is known) and never reads their rows, then those rows by
 * primary key. An OFFSET over the rows themselves read every row before the page (so a deep
 * page of a large catalog cost as much as reading the catalog), and a plain `ORDER BY pk LIMIT`
 * could walk the primary key through other shops' rows. Ordered by the index's own columns
 * (shop_pk, pk), so no plan but that index's gives the order, whatever the statistics say
 * (right after a large import, before any ANALYZE, `ORDER BY pk` was planned on the primary key).
 */
/** The pks of a page of products, in order. */
export const pagePks = async (db: Executor, shopPk: number, f: ProductFilter): Promise<number[]> => {
  const fromEnd = f.total !== undefined && f.offset + f.limit / 2 > f.total / 2;
  const rows = fromEnd
    ? await products(db, shopPk, f)
        .select('pk')
        .orderBy('shop_pk', 'desc')
        .orderBy('pk', 'desc')
        .offset(Math.max(0, f.total! - f.offset - f.limit))
        .limit(Math.max(0, Math.min(f.limit, f.total! - f.offset)))
        .execute()
    : await products(db, shopPk, f).select('pk').orderBy('shop_pk').orderBy('pk').offset(f.offset).limit(f.limit).execute();
  return rows.map((r) => r.pk).sort((a, b) => a - b);
};

/** Products by pk (of a page), in pk order. */
export const productsByPk = (db: Executor, pks: number[]) =>
  pks.length === 0 ? Promise.resolve([]) : db.selectFrom('products').selectAll().where('pk', 'in', pks).orderBy('pk').execute();

/**
 * VACUUM (ANALYZE) of the catalog's tables, on one connection of `db` with no statement time
 * limit: it marks the pages written since the last run all-visible (so a page of a list is an
 * index-only scan that reads no rows) and refreshes the planner's statistics. Pages already
 * all-visible are skipped, so a run costs about what was written since the last one.
 */
export const vacuumCatalog = (db: Db): Promise<void> =>
  db.connection().execute(async (c) => {
    await sql`set statement_timeout = 0`.execute(c);
    try {
      await sql`vacuum (analyze) products, product_images, variations, variation_images`.execute(c);
    } finally {
      await sql`reset statement_timeout`.execute(c);
    }
  });

/** Live products of a shop, as the catalog writer counts them (migration 20261124T0030). */
export const liveProductCount = async (db: Executor, shopPk: number): Promise<number> => {
  const r = await db
    .selectFrom('product_counts')
    .select((eb) => eb.fn.sum<string | null>('live').as('n'))
    .where('shop_pk', '=', shopPk)
    .executeTakeFirstOrThrow();
  return Number(r.n ?? 0);
};

export const countProducts = async (db: Executor, shopPk: number, f: Omit<ProductFilter, 'limit' | 'offset'>): Promise<number> =>
  Number(
    (
      await products(db, shopPk, f)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

export const findProduct = (db: Executor, shopPk: number, pk: number) =>
  db
    .selectFrom('products')
    .selectAll()
    .where('shop_pk', '=', shopPk)
    .where('pk', '=', pk)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();

export const imagesOf = (db: Executor, productPks: number[]) =>
  productPks.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom('product_images')
        .select(['pk', 'product_pk', 'url', 'position'])
        .where('product_pk', 'in', productPks)
        .orderBy('position')
        .execute();

export const liveVariationsOf = (db: Executor, productPks: number[]) =>
  productPks.length === 0
    ? Promise.resolve([])
    : db.selectFrom('variations').selectAll().where('product_pk', 'in', productPks).where('deleted_at', 'is', null).orderBy('pk').execute();

export const findVariation = (db: Executor, productPk: number, pk: number) =>
  db
    .selectFrom('variations')
    .selectAll()
    .where('product_pk', '=', productPk)
    .where('pk', '=', pk)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();

export const linksOf = (db: Executor, variationPks: number[]) =>
  variationPks.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom('variation_images')
        .select(['variation_pk', 'image_pk', 'position'])
        .where('variation_pk', 'in', variationPks)
        .orderBy('position')
        .execute();

export const softDeleteProduct = async (db: Executor, shopPk: number, pk: number): Promise<boolean> =>
  (await softDeleteProducts(db, [pk], shopPk)) > 0;

export type ProductRecord = NonNullable<Awaited<ReturnType<typeof findProduct>>>;
export type VariationRecord = Awaited<ReturnType<typeof liveVariationsOf>>[number];
