// All Kysely code of webhook delivery records: one row per attempt, grouped by message_id.
import { sql, type Insertable, type Selectable } from 'kysely';
import type { Executor } from '../db/database.ts';
import type { WebhookTables } from './webhooks.tables.ts';

type Row = WebhookTables['webhook_deliveries'];
export type AttemptRow = Selectable<Row>;
export type NewAttempt = Omit<Insertable<Row>, 'attempt'>;

/** Records one attempt, numbered after the message's earlier ones; the row back. */
export const insertAttempt = (db: Executor, row: NewAttempt) =>
  db
    .insertInto('webhook_deliveries')
    .values({
      ...row,
      attempt: sql<number>`(select coalesce(max(attempt), 0) + 1 from webhook_deliveries where message_id = ${row.message_id})`,
    })
    .returningAll()
    .executeTakeFirstOrThrow();

export interface DeliveryFilter {
  shopPk?: number;
  /** A client-facing event name or waybill's type. */
  event?: string;
  /** The resource's pk (a feed's pk, an order's order_pk). */
  pk?: string;
  /** The last attempt's outcome. */
  outcome?: string;
  messageId?: string;
  limit: number;
  offset: number;
}

/** Message ids of deliveries, the latest attempted first, with their last attempt's outcome. */
export const listMessageIds = async (db: Executor, f: DeliveryFilter): Promise<string[]> => {
  let last = db
    .selectFrom('webhook_deliveries')
    .distinctOn('message_id')
    .select(['message_id', 'id', 'outcome'])
    .orderBy('message_id')
    .orderBy('id', 'desc');
  if (f.shopPk !== undefined) last = last.where('shop_pk', '=', f.shopPk);
  if (f.event !== undefined) last = last.where((eb) => eb.or([eb('event', '=', f.event!), eb('type', '=', f.event!)]));
  if (f.pk !== undefined) last = last.where('resource_pk', '=', f.pk);
  if (f.messageId !== undefined) last = last.where('message_id', '=', f.messageId);
  let q = db.selectFrom(last.as('last')).select('message_id').orderBy('id', 'desc').limit(f.limit).offset(f.offset);
  if (f.outcome !== undefined) q = q.where('outcome', '=', f.outcome);
  return (await q.execute()).map((r) => r.message_id);
};

/** Every attempt of these messages, in attempt order. */
export const attemptsOf = (db: Executor, messageIds: string[]) =>
  messageIds.length === 0
    ? Promise.resolve([] as AttemptRow[])
    : db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('message_id', 'in', messageIds)
        .orderBy('message_id')
        .orderBy('attempt')
        .execute();

/** Deletes attempts older than `days`, at most `batch` rows; how many. */
export const pruneAttempts = async (db: Executor, days: number, batch: number): Promise<number> => {
  const r = await db
    .deleteFrom('webhook_deliveries')
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('started_at', '<', sql<Date>`now() - make_interval(days => ${days})`)
        .limit(batch),
    )
    .executeTakeFirst();
  return Number(r.numDeletedRows);
};

/** Deliveries whose last attempt (since `since`) did not deliver, by that attempt's outcome (failed, refused). */
export const undeliveredCounts = (db: Executor, since: Date) =>
  db
    .selectFrom(
      db
        .selectFrom('webhook_deliveries')
        .distinctOn('message_id')
        .select(['message_id', 'outcome'])
        .where('started_at', '>=', since)
        .orderBy('message_id')
        .orderBy('id', 'desc')
        .as('last'),
    )
    .select(['outcome', (eb) => eb.fn.countAll<string>().as('n')])
    .where('outcome', '<>', 'delivered')
    .groupBy('outcome')
    .execute();
