import type { Executor } from '../db/database.ts';

export const insertShop = (db: Executor, row: { name: string; webhook_url: string | null; webhook_secret: string }) =>
  db.insertInto('shops').values(row).returningAll().executeTakeFirstOrThrow();

export const listShops = (db: Executor) => db.selectFrom('shops').selectAll().orderBy('pk').execute();

export const findShop = (db: Executor, pk: number) => db.selectFrom('shops').selectAll().where('pk', '=', pk).executeTakeFirst();

export const countShops = async (db: Executor): Promise<number> => {
  const r = await db.selectFrom('shops').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(r.n);
};

export const updateShop = (db: Executor, pk: number, patch: { name?: string; webhook_url?: string | null }) =>
  db.updateTable('shops').set(patch).where('pk', '=', pk).returningAll().executeTakeFirst();

export const insertKey = (db: Executor, row: { shop_pk: number; prefix: string; hash: string; label: string | null }) =>
  db.insertInto('api_keys').values(row).returningAll().executeTakeFirstOrThrow();

export const listKeys = (db: Executor, shopPk?: number) => {
  let q = db.selectFrom('api_keys').selectAll().orderBy('id');
  if (shopPk !== undefined) q = q.where('shop_pk', '=', shopPk);
  return q.execute();
};

/** The live key with this hash, and marks it used (at most once a minute, to spare writes). */
export const findActiveKeyByHash = (db: Executor, hash: string) =>
  db
    .selectFrom('api_keys')
    .select(['shop_pk', 'prefix', 'last_used_at'])
    .where('hash', '=', hash)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();

export const touchKey = (db: Executor, prefix: string) =>
  db.updateTable('api_keys').set({ last_used_at: new Date() }).where('prefix', '=', prefix).execute();

export const revokeKey = (db: Executor, prefix: string) =>
  db
    .updateTable('api_keys')
    .set({ revoked_at: new Date() })
    .where('prefix', '=', prefix)
    .where('revoked_at', 'is', null)
    .returningAll()
    .executeTakeFirst();

export const findKeyByPrefix = (db: Executor, prefix: string) =>
  db.selectFrom('api_keys').selectAll().where('prefix', '=', prefix).executeTakeFirst();
