// Feeds, their payloads and their per-chunk results.
import { sql } from 'kysely';
import { queryPrepared, type Executor } from '../db/database.ts';
import type { FeedFilter } from './feeds.schemas.ts';

export interface NewFeed {
  pk: string;
  shop_pk: number;
  type: string;
  source: string;
  product_pk: number | null;
  variation_pk: number | null;
  base_url: string;
  total: number;
}

export interface NewPayload {
  /** The items, or each item's JSON text (written as it is). */
  items: unknown[] | { json: string[] };
  warnings: unknown[];
  skus: string[];
  /** Each item's content hash (connectors' delta detection), or null. */
  hashes: (string | null)[] | null;
}

/** The batch as one JSON array text; items given as JSON texts are spliced in unparsed. */
const feedsJson = (feeds: (NewFeed & NewPayload)[]): string => {
  let out = '[';
  for (const [i, { items, ...rest }] of feeds.entries()) {
    const head = JSON.stringify(rest);
    const list = Array.isArray(items) ? JSON.stringify(items) : `[${items.json.join(',')}]`;
    out += `${i === 0 ? '' : ','}${head.slice(0, -1)},"items":${list}}`;
  }
  return `${out}]`;
};

/**
 * A feed row's columns, named (not `*`): a prepared statement's result must keep its shape
 * when a later migration adds a column.
 */
const FEED_COLUMNS =
  'pk, shop_pk, type, state, source, product_pk, variation_pk, base_url, total, processed, succeeded, failed, warnings, criticals, created_at, started_at, finished_at, leased_until, owner';

const INSERT_FEEDS = `
  with x as (
    select * from json_to_recordset($1::json) as x(
      pk uuid, shop_pk bigint, type text, source text, product_pk bigint, variation_pk bigint,
      base_url text, total integer, items jsonb, warnings jsonb, skus text[], hashes text[])
  ),
  f as (
    insert into feeds (pk, shop_pk, type, source, product_pk, variation_pk, base_url, total)
    select pk, shop_pk, type, source, product_pk, variation_pk, base_url, total from x
    returning ${FEED_COLUMNS}
  ),
  p as (insert into feed_payloads (feed_pk, items, warnings, skus, hashes) select pk, items, warnings, skus, hashes from x)
  select f.*, s.tier as shop_tier from f join shops s on s.pk = f.shop_pk`;

/**
 * Feeds and their payloads, many at once, in one statement (group commit: one round trip for
 * the batch). Rows come back in the order given. Prepared: every accepted catalog write runs
 * it, and planning it cost more than running it for a batch of a dozen one-product feeds.
 */
export const insertFeeds = async (db: Executor, feeds: (NewFeed & NewPayload)[]): Promise<(FeedRow & { shop_tier: string })[]> => {
  const rows = await queryPrepared<FeedRow & { shop_tier: string }>(db, INSERT_FEEDS, [feedsJson(feeds)]);
  const byPk = new Map(rows.map((row) => [row.pk, row]));
  return feeds.map((f) => byPk.get(f.pk)!);
};

export const findFeed = (db: Executor, pk: string) => db.selectFrom('feeds').selectAll().where('pk', '=', pk).executeTakeFirst();
export type FeedRow = NonNullable<Awaited<ReturnType<typeof findFeed>>>;

/** Feeds with what a worker needs to process them: payload and whether the shop has a webhook. */
const withPayload = (db: Executor) =>
  db
    .selectFrom('feeds')
    .innerJoin('feed_payloads', 'feed_payloads.feed_pk', 'feeds.pk')
    .innerJoin('shops', 'shops.pk', 'feeds.shop_pk')
    .selectAll('feeds')
    .select([
      'feed_payloads.items as payload_items',
      'feed_payloads.warnings as payload_warnings',
      'feed_payloads.hashes as payload_hashes',
      sql<boolean>`shops.webhook_url is not null`.as('has_webhook'),
    ]);

/** What a worker needs to process a feed, in one round trip. */
export const findForProcessing = (db: Executor, pk: string) => withPayload(db).where('feeds.pk', '=', pk).executeTakeFirst();
export type FeedToProcess = NonNullable<Awaited<ReturnType<typeof findForProcessing>>>;

/** findForProcessing of many feeds at once (a batch of feed jobs). */
export const findManyForProcessing = (db: Executor, pks: string[]): Promise<FeedToProcess[]> =>
  pks.length === 0 ? Promise.resolve([]) : withPayload(db).where('feeds.pk', 'in', pks).execute();

/** The job group of each feed (its shop and the shop's tier): whose share a feed's job takes. */
export const jobGroupsOf = (db: Executor, pks: string[]) =>
  pks.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom('feeds')
        .innerJoin('shops', 'shops.pk', 'feeds.shop_pk')
        .select(['feeds.pk', 'feeds.shop_pk', 'shops.tier'])
        .where('feeds.pk', 'in', pks)
        .execute();

/** Locks the feed for one chunk. NOWAIT: a feed another worker is in fails fast (transient, retried). */
export const lockFeed = (db: Executor, pk: string) =>
  db.selectFrom('feeds').select(['state', 'processed']).where('pk', '=', pk).forUpdate().noWait().executeTakeFirst();

/**
 * How long a worker's hold on a feed lasts without a heartbeat, seconds. Its worker renews it
 * every HEARTBEAT_SECONDS while it processes the feed (not only at each committed chunk: a
 * chunk of 1,000 items may take longer than that on a loaded machine).
 */
export const LEASE_SECONDS = 15;
export const HEARTBEAT_SECONDS = 2;
/**
 * A lease whose owner is provably gone (src/system/process-owner.ts) is taken back once it
 * missed this long of heartbeats, seconds: one beat and a half, so that a live process of the
 * same host name in another pid namespace (which this check cannot see) is never taken from.
 */
export const MISSED_SECONDS = 3;
const lease = sql<Date>`now() + make_interval(secs => ${LEASE_SECONDS})`;

/**
 * Marks the feed `processing` with `owner`'s lease, in one statement that takes the feed's lock
 * NOWAIT (a feed another worker is in fails fast, as lockFeed).
 */
export const markProcessing = (db: Executor, pk: string, owner: string) =>
  db
    .updateTable('feeds')
    .set({ state: 'processing', started_at: sql<Date>`coalesce(started_at, now())`, leased_until: lease, owner })
    .where('pk', '=', (eb) =>
      eb.selectFrom('feeds').select('pk').where('pk', '=', pk).where('state', 'in', ['queued', 'processing']).forUpdate().noWait(),
    )
    .execute();

/**
 * markProcessing of many feeds in one statement: the ones another worker holds locked are
 * skipped (not waited for). Returns the pks marked.
 */
export const markManyProcessing = async (db: Executor, pks: string[], owner: string): Promise<string[]> =>
  (
    await db
      .updateTable('feeds')
      .set({ state: 'processing', started_at: sql<Date>`coalesce(started_at, now())`, leased_until: lease, owner })
      .where('pk', 'in', (eb) =>
        eb.selectFrom('feeds').select('pk').where('pk', 'in', pks).where('state', 'in', ['queued', 'processing']).forUpdate().skipLocked(),
      )
      .returning('pk')
      .execute()
  ).map((r) => r.pk);

/** Locks, for one transaction, the feeds of `pks` still untouched (nothing applied) that no other transaction holds. */
export const lockUntouched = async (db: Executor, pks: string[]): Promise<string[]> =>
  (
    await db
      .selectFrom('feeds')
      .select('pk')
      .where('pk', 'in', pks)
      .where('state', '=', 'processing')
      .where('processed', '=', 0)
      .forUpdate()
      .skipLocked()
      .execute()
  ).map((r) => r.pk);

/** The heartbeat of a worker processing many feeds at once. */
export const heartbeatMany = (db: Executor, pks: string[], owner: string) =>
  db.updateTable('feeds').set({ leased_until: lease, owner }).where('pk', 'in', pks).where('state', '=', 'processing').execute();

/** The heartbeat of a worker processing `pk`: its lease renewed, and it named as the owner. */
export const heartbeat = (db: Executor, pk: string, owner: string) =>
  db.updateTable('feeds').set({ leased_until: lease, owner }).where('pk', '=', pk).where('state', '=', 'processing').execute();

/**
 * Feeds whose worker stopped: its lease ran out, or it missed a heartbeat and `gone(owner)`
 * says its process no longer runs. Their lease is renewed (owner: none) for the new job.
 * Candidates are read without locking (a lock here would make a live worker's NOWAIT chunk
 * lock fail); the update takes a feed only if it is still as it was read.
 */
export const takeStaleFeeds = async (db: Executor, gone: (owner: string | null) => boolean): Promise<string[]> => {
  const missed = sql<Date>`now() + make_interval(secs => ${LEASE_SECONDS - MISSED_SECONDS})`;
  const candidates = await db
    .selectFrom('feeds')
    .select(['pk', 'owner', sql<boolean>`leased_until < now()`.as('expired')])
    .where('state', '=', 'processing')
    .where('leased_until', '<', missed)
    .execute();
  const stale = candidates.filter((c) => c.expired || gone(c.owner));
  if (stale.length === 0) return [];
  const r = await db
    .updateTable('feeds')
    .set({ leased_until: lease, owner: null })
    .where('state', '=', 'processing')
    .where((eb) =>
      eb.or(
        stale.map((c) =>
          eb.and([
            eb('pk', '=', c.pk),
            c.expired ? eb('leased_until', '<', sql<Date>`now()`) : eb.and([eb('owner', '=', c.owner), eb('leased_until', '<', missed)]),
          ]),
        ),
      ),
    )
    .returning('pk')
    .execute();
  return r.map((x) => x.pk);
};

export const insertResult = (db: Executor, row: { feed_pk: string; offset: number; success: string; errors: string }) =>
  db
    .insertInto('feed_results')
    .values(row)
    .onConflict((oc) => oc.columns(['feed_pk', 'offset']).doNothing())
    .execute();

/** Many feeds' one and only results, in one statement. */
export const insertResults = async (
  db: Executor,
  rows: { feed_pk: string; offset: number; success: unknown[]; errors: unknown[] }[],
): Promise<void> => {
  if (rows.length === 0) return;
  await sql`
    insert into feed_results (feed_pk, "offset", success, errors)
    select feed_pk, "offset", success, errors from json_to_recordset(${JSON.stringify(rows)}::json) as x(feed_pk uuid, "offset" integer, success jsonb, errors jsonb)
    on conflict (feed_pk, "offset") do nothing`.execute(db);
};

/** Many feeds applied whole: each marked done with its counts, in one statement. Returns their rows. */
export const finishMany = async (
  db: Executor,
  rows: { pk: string; processed: number; succeeded: number; failed: number; warnings: number }[],
): Promise<FeedRow[]> => {
  if (rows.length === 0) return [];
  const r = await sql<FeedRow>`
    update feeds f set processed = x.processed, succeeded = f.succeeded + x.succeeded, failed = f.failed + x.failed,
      warnings = f.warnings + x.warnings, leased_until = null, owner = null, state = 'done', finished_at = now()
    from json_to_recordset(${JSON.stringify(rows)}::json) as x(pk uuid, processed integer, succeeded integer, failed integer, warnings integer)
    where f.pk = x.pk
    returning f.*`.execute(db);
  return r.rows;
};

export const advance = (
  db: Executor,
  pk: string,
  c: { processed: number; succeeded: number; failed: number; warnings: number; done: boolean; owner: string },
) =>
  db
    .updateTable('feeds')
    .set((eb) => ({
      processed: c.processed,
      succeeded: eb('succeeded', '+', c.succeeded),
      failed: eb('failed', '+', c.failed),
      warnings: eb('warnings', '+', c.warnings),
      leased_until: c.done ? null : lease,
      owner: c.done ? null : c.owner,
      ...(c.done ? { state: 'done', finished_at: sql<Date>`now()` } : {}),
    }))
    .where('pk', '=', pk)
    .returningAll()
    .executeTakeFirstOrThrow();

export const markFailed = (db: Executor, pk: string, criticals: string) =>
  db
    .updateTable('feeds')
    .set({ state: 'failed', finished_at: sql<Date>`now()`, criticals })
    .where('pk', '=', pk)
    .where('state', 'in', ['queued', 'processing'])
    .returningAll()
    .executeTakeFirst();

export const requeue = (db: Executor, pk: string) =>
  db
    .updateTable('feeds')
    .set({ state: 'queued', finished_at: null, criticals: '[]' })
    .where('pk', '=', pk)
    .where('state', '<>', 'done')
    .returningAll()
    .executeTakeFirst();

export const results = (db: Executor, pk: string) =>
  db.selectFrom('feed_results').select(['success', 'errors']).where('feed_pk', '=', pk).orderBy('offset').execute();

const filtered = (db: Executor, f: Omit<FeedFilter, 'limit' | 'offset'>) => {
  let q = db.selectFrom('feeds');
  if (f.shopPk !== undefined) q = q.where('shop_pk', '=', f.shopPk);
  if (f.type !== undefined) q = q.where('type', '=', f.type);
  if (f.state !== undefined) q = q.where('state', '=', f.state);
  if (f.itemErrors !== undefined) q = q.where('failed', f.itemErrors ? '>' : '=', 0);
  if (f.since !== undefined) q = q.where('created_at', '>=', f.since);
  if (f.until !== undefined) q = q.where('created_at', '<', f.until);
  if (f.sku !== undefined) {
    const sku = f.sku;
    q = q.where((eb) =>
      eb.exists(
        eb
          .selectFrom('feed_payloads')
          .select(sql`1`.as('one'))
          .whereRef('feed_payloads.feed_pk', '=', 'feeds.pk')
          .where(sql<boolean>`${sku} = any(feed_payloads.skus)`),
      ),
    );
  }
  return q;
};

export const listFeeds = (db: Executor, f: FeedFilter) =>
  filtered(db, f).selectAll().orderBy('created_at', 'desc').orderBy('pk').limit(f.limit).offset(f.offset).execute();

export const countFeeds = async (db: Executor, f: Omit<FeedFilter, 'limit' | 'offset'>): Promise<number> =>
  Number(
    (
      await filtered(db, f)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

/** Deletes up to `batch` feeds created before `days` days ago (payloads and results go with them). */
export const pruneFeeds = async (db: Executor, days: number, batch: number): Promise<number> => {
  const r = await sql`
    delete from feeds where pk in (
      select pk from feeds where created_at < now() - make_interval(days => ${days}) limit ${batch})
  `.execute(db);
  return Number(r.numAffectedRows ?? 0);
};
