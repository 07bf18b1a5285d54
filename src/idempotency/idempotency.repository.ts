import { sql } from 'kysely';
import type { Executor } from '../db/database.ts';

/** Claims (shop, key) for a new request. False when the key is already there. */
export const claimKey = async (
  db: Executor,
  row: { shop_pk: number; key: string; method: string; path: string; body_hash: string },
): Promise<boolean> => {
  const r = await db
    .insertInto('idempotency_keys')
    .values(row)
    .onConflict((oc) => oc.doNothing())
    .executeTakeFirst();
  return Number(r.numInsertedOrUpdatedRows ?? 0) > 0;
};

export const findKey = (db: Executor, shopPk: number, key: string) =>
  db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('shop_pk', '=', shopPk)
    .where('key', '=', key)
    .where('created_at', '>', sql<Date>`now() - interval '24 hours'`)
    .executeTakeFirst();

export const saveReply = (
  db: Executor,
  shopPk: number,
  key: string,
  reply: { status: number; headers: Record<string, string>; body: string },
) =>
  db
    .updateTable('idempotency_keys')
    .set({ status: reply.status, headers: JSON.stringify(reply.headers), body: reply.body })
    .where('shop_pk', '=', shopPk)
    .where('key', '=', key)
    .execute();

/** Deletes the key when it is older than 24 h (findKey no longer sees it). */
export const deleteExpiredKey = (db: Executor, shopPk: number, key: string) =>
  db
    .deleteFrom('idempotency_keys')
    .where('shop_pk', '=', shopPk)
    .where('key', '=', key)
    .where('created_at', '<=', sql<Date>`now() - interval '24 hours'`)
    .execute();

export const releaseKey = (db: Executor, shopPk: number, key: string) =>
  db.deleteFrom('idempotency_keys').where('shop_pk', '=', shopPk).where('key', '=', key).where('status', 'is', null).execute();

/** Drops keys older than 24 h (and any stale claim), returns how many. */
export const pruneKeys = async (db: Executor): Promise<number> => {
  const r = await db
    .deleteFrom('idempotency_keys')
    .where('created_at', '<', sql<Date>`now() - interval '24 hours'`)
    .executeTakeFirst();
  return Number(r.numDeletedRows);
};
