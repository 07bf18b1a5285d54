import { sql } from 'kysely';
import type { Executor } from '../db/database.ts';

const seconds = (n: number) => sql<Date>`now() - make_interval(secs => ${n})`;

export const insertSession = (db: Executor, idHash: string, lifetimeSeconds: number) =>
  db
    .insertInto('admin_sessions')
    .values({ id_hash: idHash, expires_at: sql<Date>`now() + make_interval(secs => ${lifetimeSeconds})` })
    .execute();

/**
 * The session if it is still valid: not past its absolute end, used within the idle limit.
 * `stale` says its last_seen_at is older than touchSeconds and should be moved on.
 */
export const findLiveSession = (db: Executor, idHash: string, idleSeconds: number, touchSeconds: number) =>
  db
    .selectFrom('admin_sessions')
    .select(sql<boolean>`last_seen_at < ${seconds(touchSeconds)}`.as('stale'))
    .where('id_hash', '=', idHash)
    .where('expires_at', '>', sql<Date>`now()`)
    .where('last_seen_at', '>', seconds(idleSeconds))
    .executeTakeFirst();

export const touchSession = (db: Executor, idHash: string) =>
  db
    .updateTable('admin_sessions')
    .set({ last_seen_at: sql<Date>`now()` })
    .where('id_hash', '=', idHash)
    .execute();

export const deleteSession = (db: Executor, idHash: string) => db.deleteFrom('admin_sessions').where('id_hash', '=', idHash).execute();

/** Drops sessions past their absolute end or idle for idleSeconds; returns how many. */
export const pruneSessions = async (db: Executor, idleSeconds: number): Promise<number> => {
  const r = await db
    .deleteFrom('admin_sessions')
    .where((eb) => eb.or([eb('expires_at', '<=', sql<Date>`now()`), eb('last_seen_at', '<=', seconds(idleSeconds))]))
    .executeTakeFirst();
  return Number(r.numDeletedRows);
};
