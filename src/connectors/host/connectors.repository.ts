// All queries of the connector host: run records, state, overrides, delta hashes, processed
// files, receiver replies, and the per-connector run lock.
import { sql } from 'kysely';
import type { Db, Executor } from '../../db/database.ts';

export const insertRun = (
  db: Executor,
  row: { connector: string; trigger: string; scheduled_for: Date | null; job_id: string | null; attempt: number },
) =>
  db
    .insertInto('connector_runs')
    .values({ ...row, outcome: 'running' })
    .returningAll()
    .executeTakeFirstOrThrow();

export const finishRun = (
  db: Executor,
  id: number,
  patch: { outcome: string; counts: Record<string, number>; error: string | null; feed_pks: string[]; throttled_until?: Date | null },
) =>
  db
    .updateTable('connector_runs')
    .set({
      outcome: patch.outcome,
      counts: JSON.stringify(patch.counts),
      error: patch.error,
      feed_pks: JSON.stringify(patch.feed_pks),
      throttled_until: patch.throttled_until ?? null,
      finished_at: sql<Date>`now()`,
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();

/** Runs left "running" by a process that died: only called while holding the connector's lock. */
export const failInterrupted = (db: Executor, connector: string) =>
  db
    .updateTable('connector_runs')
    .set({ outcome: 'failed', error: 'interrupted: the process running it stopped before the run ended', finished_at: sql<Date>`now()` })
    .where('connector', '=', connector)
    .where('outcome', '=', 'running')
    .execute();

export const listRuns = (db: Executor, connector: string, limit: number) =>
  db.selectFrom('connector_runs').selectAll().where('connector', '=', connector).orderBy('id', 'desc').limit(limit).execute();

/** The last `perConnector` runs of each connector, newest first. */
export const lastRuns = (db: Executor, connectors: string[], perConnector: number) =>
  connectors.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom((eb) =>
          eb
            .selectFrom('connector_runs')
            .selectAll()
            .select(sql<number>`row_number() over (partition by connector order by id desc)`.as('n'))
            .where('connector', 'in', connectors)
            .as('r'),
        )
        .selectAll()
        .where('n', '<=', perConnector)
        .orderBy('id', 'desc')
        .execute();

/** Until when each connector is throttled (its latest throttled run), for those throttled now. */
export const throttledUntil = async (db: Executor, connectors: string[]): Promise<Map<string, Date>> => {
  if (connectors.length === 0) return new Map();
  const rows = await db
    .selectFrom('connector_runs')
    .distinctOn('connector')
    .select(['connector', 'throttled_until'])
    .where('connector', 'in', connectors)
    .where('throttled_until', 'is not', null)
    .orderBy('connector')
    .orderBy('id', 'desc')
    .execute();
  const now = Date.now();
  return new Map(rows.filter((r) => r.throttled_until!.getTime() > now).map((r) => [r.connector, r.throttled_until!]));
};

export const getState = (db: Executor, connector: string, key: string) =>
  db.selectFrom('connector_state').select('value').where('connector', '=', connector).where('key', '=', key).executeTakeFirst();

export const setState = (db: Executor, connector: string, key: string, value: unknown) =>
  db
    .insertInto('connector_state')
    .values({ connector, key, value: JSON.stringify(value ?? null) })
    .onConflict((oc) => oc.columns(['connector', 'key']).doUpdateSet({ value: JSON.stringify(value ?? null), updated_at: new Date() }))
    .execute();

export const listSettings = (db: Executor) => db.selectFrom('connector_settings').selectAll().execute();

export const getSetting = (db: Executor, connector: string) =>
  db.selectFrom('connector_settings').selectAll().where('connector', '=', connector).executeTakeFirst();

export const setEnabled = (db: Executor, connector: string, enabled: boolean) =>
  db
    .insertInto('connector_settings')
    .values({ connector, enabled })
    .onConflict((oc) => oc.column('connector').doUpdateSet({ enabled, updated_at: new Date() }))
    .execute();

export const findHashes = (db: Executor, shopPk: number, skus: string[]) =>
  db
    .selectFrom('connector_product_hashes')
    .select(['sku', 'hash'])
    .where('shop_pk', '=', shopPk)
    .where('sku', '=', sql<string>`any(${skus}::text[])`)
    .execute();

/** One multi-row upsert (unnest keeps it a single statement whatever the count). */
export const upsertHashes = async (db: Executor, shopPk: number, items: { sku: string; hash: string }[]): Promise<void> => {
  if (items.length === 0) return;
  await sql`
    insert into connector_product_hashes (shop_pk, sku, hash, updated_at)
    select ${shopPk}, s, h, now() from unnest(${items.map((i) => i.sku)}::text[], ${items.map((i) => i.hash)}::text[]) as t(s, h)
    on conflict (shop_pk, sku) do update set hash = excluded.hash, updated_at = excluded.updated_at`.execute(db);
};

/** Forgets the content hashes of deleted products: one created again is sent again. */
export const forgetHashes = async (db: Executor, shopPk: number, skus: string[]): Promise<void> => {
  if (skus.length === 0) return;
  await db
    .deleteFrom('connector_product_hashes')
    .where('shop_pk', '=', shopPk)
    .where('sku', '=', sql<string>`any(${skus}::text[])`)
    .execute();
};

/** A file processed before whose feeds were all applied in full (done, nothing refused). */
export const findAppliedFile = (db: Executor, connector: string, sha256: string) =>
  db
    .selectFrom('connector_files as f')
    .select(['f.file_name', 'f.done_at'])
    .where('f.connector', '=', connector)
    .where('f.sha256', '=', sha256)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('feeds')
            .select('feeds.pk')
            .where(sql<boolean>`feeds.pk = any(f.feed_pks::uuid[])`)
            .where((eb) => eb.or([eb('feeds.state', '<>', 'done'), eb('feeds.failed', '>', 0)])),
        ),
      ),
    )
    // A feed pruned since is no proof it was applied: every one must still be there.
    .where(sql<boolean>`cardinality(f.feed_pks) = (select count(*) from feeds where feeds.pk = any(f.feed_pks::uuid[]))`)
    .executeTakeFirst();

/** Records a processed file and its feeds (again, when it was read again). */
export const upsertFile = (
  db: Executor,
  row: { connector: string; sha256: string; file_name: string; run_id: number | null; feed_pks: string[] },
) =>
  db
    .insertInto('connector_files')
    .values(row)
    .onConflict((oc) =>
      oc
        .columns(['connector', 'sha256'])
        .doUpdateSet({ file_name: row.file_name, run_id: row.run_id, feed_pks: row.feed_pks, done_at: new Date() }),
    )
    .execute();

/** Claims a delivery key; false when it was claimed before. */
export const claimReceipt = async (db: Executor, connector: string, key: string): Promise<boolean> => {
  const r = await db
    .insertInto('connector_receipts')
    .values({ connector, key })
    .onConflict((oc) => oc.columns(['connector', 'key']).doNothing())
    .returning('key')
    .executeTakeFirst();
  return r !== undefined;
};

export const getReceipt = (db: Executor, connector: string, key: string) =>
  db.selectFrom('connector_receipts').selectAll().where('connector', '=', connector).where('key', '=', key).executeTakeFirst();

export const finishReceipt = (
  db: Executor,
  connector: string,
  key: string,
  reply: { status: number; headers: Record<string, string>; body: unknown },
) =>
  db
    .updateTable('connector_receipts')
    .set({ status: reply.status, headers: JSON.stringify(reply.headers), body: JSON.stringify(reply.body ?? null) })
    .where('connector', '=', connector)
    .where('key', '=', key)
    .execute();

/** Drops a claim whose handling failed, so the sender's retry is handled afresh. */
export const releaseReceipt = (db: Executor, connector: string, key: string) =>
  db.deleteFrom('connector_receipts').where('connector', '=', connector).where('key', '=', key).where('status', 'is', null).execute();

export const pruneReceipts = (db: Executor, olderThan: Date) =>
  db.deleteFrom('connector_receipts').where('created_at', '<', olderThan).execute();

/**
 * Runs fn while holding a session advisory lock on the connector's name, on a connection of
 * its own; when another process (replica, CLI) holds it, returns { locked: false } at once.
 * A crash drops the connection, and with it the lock.
 */
export async function withRunLock<T>(
  db: Db,
  connector: string,
  fn: () => Promise<T>,
): Promise<{ locked: true; value: T } | { locked: false }> {
  return db.connection().execute(async (conn) => {
    const got = await sql<{ ok: boolean }>`select pg_try_advisory_lock(${LOCK_CLASS}, hashtext(${connector})) as ok`.execute(conn);
    if (got.rows[0]?.ok !== true) return { locked: false as const };
    try {
      return { locked: true as const, value: await fn() };
    } finally {
      await sql`select pg_advisory_unlock(${LOCK_CLASS}, hashtext(${connector}))`.execute(conn).catch(() => undefined);
    }
  });
}

/** First key of the two-int advisory lock: keeps connector locks apart from any other use. */
const LOCK_CLASS = 0x57_42_43; // "WBC"
