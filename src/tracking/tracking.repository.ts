// All Kysely code of carrier tracking: selecting the shipments to check (reading the orders
// area's shipments and items), the per-shipment tracking state, and the deduplicated events.
import { sql, type OnConflictBuilder, type Selectable } from 'kysely';
import type { Database, Executor } from '../db/database.ts';

export interface TrackedRow {
  id: number;
  shop_pk: number;
  marketplace_pk: number;
  order_pk: number;
  carrier: string;
  tracking_code: string;
  item_pks: string[];
  items_delivered: boolean;
  last_action: string | null;
  /** Tracking is over for it (no row yet: false). */
  final: boolean;
}

export interface DueFilter {
  carriers: string[];
  shopPk: number | null;
  /** Checked at or after this instant: not due. */
  cutoff: Date;
  followDeliveredDays: number;
  limit: number;
}

/** The tracked shipments' common select: a shipment with carrier and code whose items still point at it. */
function trackedBase(db: Executor, carriers: string[], shopPk: number | null) {
  const lowered = carriers.map((c) => c.toLowerCase());
  let q = db
    .selectFrom('shipments as s')
    .leftJoin('tracking_shipments as t', 't.shipment_id', 's.id')
    // The shipment's current items, read per shipment through the order's items index (a
    // re-shipped item points at its newer shipment; cancelled items are not tracked).
    .innerJoinLateral(
      (eb) =>
        eb
          .selectFrom('order_items as i')
          .select([
            sql<string[] | null>`array_agg(i.item_pk order by i.position)`.as('item_pks'),
            sql<boolean>`coalesce(bool_or(i.status = 'delivered'), false)`.as('items_delivered'),
          ])
          .whereRef('i.order_id', '=', 's.order_id')
          .whereRef('i.shipment_id', '=', 's.id')
          .where('i.status', '<>', 'cancelled')
          .as('items'),
      (join) => join.onTrue(),
    )
    .select([
      's.id',
      's.shop_pk',
      's.marketplace_pk',
      's.order_pk',
      's.carrier',
      's.tracking_code',
      'items.item_pks',
      'items.items_delivered',
      't.last_action',
      sql<boolean>`coalesce(t.final, false)`.as('final'),
    ])
    .where('s.tracking_code', 'is not', null)
    .where('items.item_pks', 'is not', null)
    .where(sql<string>`lower(s.carrier)`, 'in', lowered);
  if (shopPk !== null) q = q.where('s.shop_pk', '=', shopPk);
  return q;
}

/** Shipments due for a check, never checked first, then oldest check first. */
export async function dueShipments(db: Executor, f: DueFilter): Promise<TrackedRow[]> {
  const rows = await trackedBase(db, f.carriers, f.shopPk)
    .where((eb) =>
      eb.or([
        eb('t.shipment_id', 'is', null),
        eb.and([
          eb('t.final', '=', false),
          eb.or([eb('t.last_checked_at', 'is', null), eb('t.last_checked_at', '<', f.cutoff)]),
          // Delivered shipments are followed for a return only within the window.
          eb.or([
            eb('t.status', '<>', 'delivered'),
            eb('t.delivered_at', '>', sql<Date>`now() - make_interval(days => ${f.followDeliveredDays})`),
          ]),
        ]),
      ]),
    )
    .orderBy(sql`t.last_checked_at asc nulls first`)
    .orderBy('s.id')
    .limit(f.limit)
    .execute();
  return rows as TrackedRow[];
}

/** The tracked shipments with this tracking code (a pushed update names the parcel only). */
export async function byTrackingCode(db: Executor, carriers: string[], shopPk: number | null, trackingCode: string): Promise<TrackedRow[]> {
  const rows = await trackedBase(db, carriers, shopPk).where('s.tracking_code', '=', trackingCode).orderBy('s.id').execute();
  return rows as TrackedRow[];
}

/** A tracking event as written: the table's row less what the database fills in. */
export type EventRow = Omit<Selectable<Database['tracking_events']>, 'id' | 'recorded_at'>;

/** Inserts the events not stored yet; returns how many were new. */
export async function insertEvents(db: Executor, rows: EventRow[]): Promise<number> {
  if (rows.length === 0) return 0;
  const inserted = await db
    .insertInto('tracking_events')
    .values(rows)
    .onConflict((oc) => oc.columns(['shipment_id', 'dedupe_key']).doNothing())
    .returning('id')
    .execute();
  return inserted.length;
}

export interface StateWrite {
  shipment_id: number;
  connector: string;
  status: string;
  carrier_status: string | null;
  final: boolean;
  delivered: boolean;
}

/**
 * A successful check in one statement: the events not stored yet (a data-modifying CTE), and
 * the state: the carrier's status, one more check, the last error cleared. Returns how many
 * events were new.
 */
export async function saveCheck(db: Executor, w: StateWrite, events: EventRow[]): Promise<number> {
  const deliveredAt = w.delivered ? sql<Date>`now()` : sql<Date | null>`null`;
  const values = {
    shipment_id: w.shipment_id,
    connector: w.connector,
    status: w.status,
    carrier_status: w.carrier_status,
    final: w.final,
    delivered_at: deliveredAt,
    checks: 1,
    last_checked_at: sql<Date>`now()`,
  };
  const onConflict = (oc: OnConflictBuilder<Database, 'tracking_shipments'>) =>
    oc.column('shipment_id').doUpdateSet({
      connector: w.connector,
      status: w.status,
      carrier_status: w.carrier_status,
      final: w.final,
      delivered_at: sql<Date | null>`coalesce(tracking_shipments.delivered_at, ${deliveredAt})`,
      checks: sql<number>`tracking_shipments.checks + 1`,
      last_checked_at: sql<Date>`now()`,
      last_error: null,
      last_error_at: null,
      updated_at: sql<Date>`now()`,
    });
  if (events.length === 0) {
    await db.insertInto('tracking_shipments').values(values).onConflict(onConflict).execute();
    return 0;
  }
  const row = await db
    .with('ev', (q) =>
      q
        .insertInto('tracking_events')
        .values(events)
        .onConflict((oc) => oc.columns(['shipment_id', 'dedupe_key']).doNothing())
        .returning('id'),
    )
    .insertInto('tracking_shipments')
    .values(values)
    .onConflict(onConflict)
    .returning(sql<number>`(select count(*) from ev)::int`.as('new_events'))
    .executeTakeFirstOrThrow();
  return row.new_events;
}

/** A failed check (a 4xx, or retries exhausted): kept against the shipment, which waits its interval. */
export async function saveError(db: Executor, shipmentId: number, connector: string, message: string): Promise<void> {
  await db
    .insertInto('tracking_shipments')
    .values({
      shipment_id: shipmentId,
      connector,
      checks: 1,
      last_checked_at: sql<Date>`now()`,
      last_error: message,
      last_error_at: sql<Date>`now()`,
      error_count: 1,
    })
    .onConflict((oc) =>
      oc.column('shipment_id').doUpdateSet({
        connector,
        checks: sql<number>`tracking_shipments.checks + 1`,
        last_checked_at: sql<Date>`now()`,
        last_error: message,
        last_error_at: sql<Date>`now()`,
        error_count: sql<number>`tracking_shipments.error_count + 1`,
        updated_at: sql<Date>`now()`,
      }),
    )
    .execute();
}

export async function setLastAction(db: Executor, shipmentId: number, action: string): Promise<void> {
  await db
    .updateTable('tracking_shipments')
    .set({ last_action: action, updated_at: sql<Date>`now()` })
    .where('shipment_id', '=', shipmentId)
    .execute();
}

export async function getState(db: Executor, shipmentId: number) {
  return db.selectFrom('tracking_shipments').selectAll().where('shipment_id', '=', shipmentId).executeTakeFirst();
}

export async function listEvents(db: Executor, shipmentId: number) {
  return db
    .selectFrom('tracking_events')
    .select(['occurred_at', 'status', 'carrier_code', 'carrier_text', 'location', 'warning', 'source'])
    .where('shipment_id', '=', shipmentId)
    .orderBy('occurred_at')
    .orderBy('id')
    .execute();
}

/** The tracking events of every shipment of these orders, oldest first per shipment. */
export async function listEventsOfOrders(db: Executor, orderIds: number[]) {
  if (orderIds.length === 0) return [];
  return db
    .selectFrom('tracking_events as e')
    .innerJoin('shipments as s', 's.id', 'e.shipment_id')
    .select(['e.shipment_id', 'e.occurred_at', 'e.status', 'e.carrier_code', 'e.carrier_text', 'e.location', 'e.warning', 'e.source'])
    .where('s.order_id', 'in', orderIds)
    .orderBy('e.shipment_id')
    .orderBy('e.occurred_at')
    .orderBy('e.id')
    .execute();
}
