import type { Executor } from '../db/database.ts';

export const insertShop = (db: Executor, row: { name: string; webhook_url: string | null; webhook_secret: string }) =>
  db.insertInto('shops').values(row).returningAll().executeTakeFirstOrThrow();

export const listShops = (db: Executor) => db.selectFrom('shops').selectAll().orderBy('pk').execute();

export const findShop = (db: Executor, pk: number) => db.selectFrom('shops').selectAll().where('pk', '=', pk).executeTakeFirst();

export const countShops = async (db: Executor): Promise<number> => {
  const r = await db
    .selectFrom('shops')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
};

/** The new sealed secret in place, the current one kept as the previous until `until`. */
export const rotateSecret = (db: Executor, pk: number, sealed: string, until: Date) =>
  db
    .updateTable('shops')
    .set((eb) => ({ webhook_secret_previous: eb.ref('webhook_secret'), webhook_secret_previous_until: until, webhook_secret: sealed }))
    .where('pk', '=', pk)
    .returning('pk')
    .executeTakeFirst();

/** Shops whose secrets were stored before sealing existed. */
export const listPlaintextSecrets = (db: Executor) =>
  db
    .selectFrom('shops')
    .select(['pk', 'webhook_secret', 'webhook_secret_previous'])
    .where((eb) => eb.or([eb('webhook_secret', 'not like', 'sealed:%'), eb('webhook_secret_previous', 'not like', 'sealed:%')]))
    .execute();

/** Writes sealed secrets over the plaintext ones read, unless they changed meanwhile; 1 or 0. */
export const replaceSecrets = async (
  db: Executor,
  read: { pk: number; webhook_secret: string; webhook_secret_previous: string | null },
  sealed: { webhook_secret: string; webhook_secret_previous: string | null },
): Promise<number> => {
  const r = await db
    .updateTable('shops')
    .set(sealed)
    .where('pk', '=', read.pk)
    .where('webhook_secret', '=', read.webhook_secret)
    .where((eb) => eb('webhook_secret_previous', 'is not distinct from', read.webhook_secret_previous))
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
};

export const updateShop = (db: Executor, pk: number, patch: { name?: string; webhook_url?: string | null; tier?: string }) =>
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
