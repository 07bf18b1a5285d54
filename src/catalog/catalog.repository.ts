// Catalog reads: products of a shop (not deleted) with their images, variations and links.
import type { Executor } from '../db/database.ts';

export interface ProductFilter {
  sku?: string;
  updatedSince?: Date;
  limit: number;
  offset: number;
}

const products = (db: Executor, shopPk: number, f: Omit<ProductFilter, 'limit' | 'offset'>) => {
  let q = db.selectFrom('products').where('shop_pk', '=', shopPk).where('deleted_at', 'is', null);
  if (f.sku !== undefined) q = q.where('sku', '=', f.sku);
  if (f.updatedSince !== undefined) q = q.where('updated_at', '>=', f.updatedSince);
  return q;
};

export const listProducts = (db: Executor, shopPk: number, f: ProductFilter) =>
  products(db, shopPk, f).selectAll().orderBy('pk').limit(f.limit).offset(f.offset).execute();

export const countProducts = async (db: Executor, shopPk: number, f: Omit<ProductFilter, 'limit' | 'offset'>): Promise<number> =>
  Number((await products(db, shopPk, f).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);

export const findProduct = (db: Executor, shopPk: number, pk: number) =>
  db.selectFrom('products').selectAll().where('shop_pk', '=', shopPk).where('pk', '=', pk).where('deleted_at', 'is', null).executeTakeFirst();

export const imagesOf = (db: Executor, productPks: number[]) =>
  productPks.length === 0
    ? Promise.resolve([])
    : db.selectFrom('product_images').select(['pk', 'product_pk', 'url', 'position']).where('product_pk', 'in', productPks).orderBy('position').execute();

export const liveVariationsOf = (db: Executor, productPks: number[]) =>
  productPks.length === 0
    ? Promise.resolve([])
    : db.selectFrom('variations').selectAll().where('product_pk', 'in', productPks).where('deleted_at', 'is', null).orderBy('pk').execute();

export const findVariation = (db: Executor, productPk: number, pk: number) =>
  db.selectFrom('variations').selectAll().where('product_pk', '=', productPk).where('pk', '=', pk).where('deleted_at', 'is', null).executeTakeFirst();

export const linksOf = (db: Executor, variationPks: number[]) =>
  variationPks.length === 0
    ? Promise.resolve([])
    : db.selectFrom('variation_images').select(['variation_pk', 'image_pk', 'position']).where('variation_pk', 'in', variationPks).orderBy('position').execute();

export const softDeleteProduct = async (db: Executor, shopPk: number, pk: number): Promise<boolean> => {
  const r = await db.updateTable('products').set({ deleted_at: new Date(), updated_at: new Date() })
    .where('shop_pk', '=', shopPk).where('pk', '=', pk).where('deleted_at', 'is', null).executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
};

export type ProductRecord = NonNullable<Awaited<ReturnType<typeof findProduct>>>;
export type VariationRecord = Awaited<ReturnType<typeof liveVariationsOf>>[number];
