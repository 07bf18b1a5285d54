// All Kysely code of orders. Every function takes the pool or the caller's transaction first.
import { CompiledQuery, sql } from 'kysely';
import type { Executor } from '../db/database.ts';

export interface NewOrderRow {
  shop_pk: number;
  marketplace_pk: number;
  order_pk: number;
  reference: string | null;
  customer: Record<string, unknown>;
  shipping_address: Record<string, unknown> | null;
  billing_address: Record<string, unknown> | null;
  shipping_cost: number | null;
  ff_type: string;
  payment_method: string | null;
  paid: boolean;
  tags: string[];
  /** When the buyer placed it; undefined: now. */
  created_at?: Date;
  status: string;
  source: string;
  base_url: string | null;
}

/** Inserts the order unless it exists; the id, or undefined when (shop, marketplace, order_pk) was taken. */
export const insertOrder = async (db: Executor, row: NewOrderRow): Promise<number | undefined> => {
  const r = await db
    .insertInto('orders')
    .values({
      ...row,
      customer: JSON.stringify(row.customer),
      shipping_address: row.shipping_address === null ? null : JSON.stringify(row.shipping_address),
      billing_address: row.billing_address === null ? null : JSON.stringify(row.billing_address),
    })
    .onConflict((oc) => oc.columns(['shop_pk', 'marketplace_pk', 'order_pk']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return r?.id;
};

export const insertItems = (
  db: Executor,
  rows: {
    order_id: number;
    item_pk: number;
    position: number;
    sku: string;
    quantity: number;
    price: number;
    ff_type: string;
    status: string;
  }[],
) => db.insertInto('order_items').values(rows).execute();

export interface NewHistoryRow {
  order_id: number;
  action: string;
  item_pks: number[];
  from_status: string | null;
  to_status: string | null;
  source: string;
  shipment_id: number | null;
  details: Record<string, unknown> | null;
}

export const insertHistory = (db: Executor, rows: NewHistoryRow[]) =>
  db
    .insertInto('order_history')
    .values(rows.map((r) => ({ ...r, details: r.details === null ? undefined : JSON.stringify(r.details) })))
    .execute();

const orderColumns = [
  'orders.id',
  'orders.shop_pk',
  'orders.marketplace_pk',
  'orders.order_pk',
  'orders.reference',
  'orders.customer',
  'orders.shipping_address',
  'orders.shipping_cost',
  'orders.status',
  'orders.created_at',
  'orders.updated_at',
  'orders.billing_address',
  'orders.ff_type',
  'orders.payment_method',
  'orders.paid',
  'orders.tags',
  'orders.base_url',
] as const;

export const findOrder = (db: Executor, shopPk: number, marketplacePk: number, orderPk: number) =>
  db
    .selectFrom('orders')
    .select(orderColumns)
    .where('shop_pk', '=', shopPk)
    .where('marketplace_pk', '=', marketplacePk)
    .where('order_pk', '=', orderPk)
    .executeTakeFirst();
export type OrderRow = NonNullable<Awaited<ReturnType<typeof findOrder>>>;

/** An order as a request names it. */
export interface OrderKey {
  shopPk: number;
  marketplacePk: number;
  orderPk: number;
}

/**
 * Locks the rows of these orders until the transaction ends; the ones that exist. In id order,
 * so two transactions locking some of the same orders take them in the same order and never
 * deadlock.
 */
export const lockOrders = async (db: Executor, keys: readonly OrderKey[]) =>
  (
    await sql<{ id: number; shop_pk: number; marketplace_pk: number; order_pk: number }>`
    select o.id, o.shop_pk, o.marketplace_pk, o.order_pk from orders o
    join unnest(${keys.map((k) => k.shopPk)}::bigint[], ${keys.map((k) => k.marketplacePk)}::bigint[], ${keys.map((k) => k.orderPk)}::bigint[])
      as k(shop_pk, marketplace_pk, order_pk)
      on o.shop_pk = k.shop_pk and o.marketplace_pk = k.marketplace_pk and o.order_pk = k.order_pk
    order by o.id
    for update of o`.execute(db)
  ).rows;

/**
 * What actions plan from: the orders' items in the order sent, each with its shipment's data,
 * its order's status and reference, and whether the shop has a webhook. Read after lockOrders,
 * in the same transaction, so no other action's write lands between this read and the writes.
 */
export const readOrderItems = (db: Executor, orderIds: readonly number[]) =>
  db
    .selectFrom('orders as o')
    .innerJoin('shops', 'shops.pk', 'o.shop_pk')
    .innerJoin('order_items as i', 'i.order_id', 'o.id')
    .leftJoin('shipments as s', 's.id', 'i.shipment_id')
    .select([
      'o.id as order_id',
      'o.status as order_status',
      'o.reference',
      'o.base_url',
      'i.id',
      'i.item_pk',
      'i.status',
      'i.shipment_id',
      's.carrier',
      's.tracking_code',
      's.delivery_time',
      's.comments',
    ])
    .select(sql<boolean>`shops.webhook_url is not null`.as('has_webhook'))
    .where('o.id', 'in', orderIds)
    .orderBy('o.id')
    .orderBy('i.position')
    .execute();
export type OrderItemRow = Awaited<ReturnType<typeof readOrderItems>>[number];

export interface ItemUpdate {
  id: number;
  status: string;
  /** The item goes into the shipment its action creates. */
  new_shipment: boolean;
}

export type HistoryWrite = Omit<NewHistoryRow, 'order_id'> & { new_shipment: boolean };

/** What one action writes to its order. */
export interface ActionWrite {
  order: OrderKey & { id: number };
  orderStatus: string;
  items: ItemUpdate[];
  /** Rows with new_shipment get the new shipment's id. */
  history: HistoryWrite[];
  /** The shipment a ship action creates (with the items it holds), if any. */
  shipment: (ShipmentData & { item_pks: number[] }) | null;
  /** Existing shipments whose data a ship on already shipped items rewrites. */
  shipmentUpdates: (ShipmentData & { id: number })[];
}

// Every row the actions of a transaction write, in one statement: under the orders' locks the
// round trips are what the actions wait for (a statement per kind of row measured below the
// target, see docs/benchmarks.md, Orders). Each table is reached through `= any($2)`, the
// orders' ids, on an index: the planner guesses a JSON record set's size and may otherwise scan.
const WRITE_ACTIONS = `
  with sh as (
    insert into shipments (order_id, shop_pk, marketplace_pk, order_pk, item_pks, carrier, tracking_code, delivery_time, comments)
    select * from jsonb_to_recordset($1::jsonb->'shipments') as s(order_id bigint, shop_pk bigint, marketplace_pk bigint, order_pk bigint,
      item_pks bigint[], carrier text, tracking_code text, delivery_time int, comments text)
    returning id, order_id
  ), shu as (
    update shipments s set carrier = v.carrier, tracking_code = v.tracking_code, delivery_time = v.delivery_time, comments = v.comments, updated_at = now()
    from jsonb_to_recordset($1::jsonb->'shipmentUpdates') as v(id bigint, carrier text, tracking_code text, delivery_time int, comments text)
    where s.order_id = any($2::bigint[]) and s.id = v.id
  ), upd as (
    update order_items i set status = v.status, shipment_id = coalesce(sh.id, i.shipment_id)
    from jsonb_to_recordset($1::jsonb->'items') as v(id bigint, order_id bigint, status text, new_shipment boolean)
      left join sh on v.new_shipment and sh.order_id = v.order_id
    where i.order_id = any($2::bigint[]) and i.id = v.id
  ), ord as (
    update orders o set status = v.status, updated_at = now()
    from jsonb_to_recordset($1::jsonb->'orders') as v(id bigint, status text)
    where o.id = any($2::bigint[]) and o.id = v.id
  )
  insert into order_history (order_id, action, item_pks, from_status, to_status, source, shipment_id, details)
  select h.order_id, h.action, h.item_pks, h.from_status, h.to_status, h.source, coalesce(sh.id, h.shipment_id), h.details
  from jsonb_to_recordset($1::jsonb->'history') as h(order_id bigint, action text, item_pks bigint[], from_status text,
    to_status text, source text, shipment_id bigint, new_shipment boolean, details jsonb, k bigint)
    left join sh on h.new_shipment and sh.order_id = h.order_id
  order by h.k`;

/**
 * Writes the actions, one per order, in the caller's transaction, which holds their orders'
 * locks (lockOrders): each order's new shipment, rewritten shipments, items' statuses, status
 * and history rows (in the order given), in one statement.
 */
export async function writeActions(db: Executor, writes: readonly ActionWrite[]): Promise<void> {
  if (writes.length === 0) return;
  const rows = {
    shipments: writes.flatMap(({ order, shipment }) =>
      shipment === null
        ? []
        : [
            {
              order_id: order.id,
              shop_pk: order.shopPk,
              marketplace_pk: order.marketplacePk,
              order_pk: order.orderPk,
              ...shipment,
            },
          ],
    ),
    shipmentUpdates: writes.flatMap((w) => w.shipmentUpdates),
    items: writes.flatMap((w) => w.items.map((i) => ({ ...i, order_id: w.order.id }))),
    orders: writes.map((w) => ({ id: w.order.id, status: w.orderStatus })),
    history: writes.flatMap((w) => w.history.map((h) => ({ ...h, order_id: w.order.id }))).map((h, k) => ({ ...h, k })),
  };
  await db.executeQuery(CompiledQuery.raw(WRITE_ACTIONS, [JSON.stringify(rows), writes.map((w) => w.order.id)]));
}

/** `marketplacePk` undefined: the orders of every marketplace. */
export const listOrders = (
  db: Executor,
  shopPk: number,
  marketplacePk: number | undefined,
  status: string | undefined,
  offset: number,
  limit: number,
) => {
  let q = db.selectFrom('orders').select(orderColumns).where('shop_pk', '=', shopPk);
  if (marketplacePk !== undefined) q = q.where('marketplace_pk', '=', marketplacePk);
  if (status !== undefined) q = q.where('status', '=', status);
  return q.orderBy('id').offset(offset).limit(limit).execute();
};

export const countOrders = async (
  db: Executor,
  shopPk: number,
  marketplacePk: number | undefined,
  status: string | undefined,
): Promise<number> => {
  let q = db
    .selectFrom('orders')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('shop_pk', '=', shopPk);
  if (marketplacePk !== undefined) q = q.where('marketplace_pk', '=', marketplacePk);
  if (status !== undefined) q = q.where('status', '=', status);
  return Number((await q.executeTakeFirstOrThrow()).n);
};

export const findOrdersByIds = (db: Executor, ids: number[]) =>
  ids.length === 0 ? Promise.resolve([]) : db.selectFrom('orders').select(orderColumns).where('id', 'in', ids).orderBy('id').execute();

/** Ids of orders across shops matching every given criterion (admin search), newest first. */
export const searchOrderIds = async (
  db: Executor,
  criteria: { orderPk?: number; reference?: string; trackingCode?: string; limit: number },
): Promise<number[]> => {
  let q = db.selectFrom('orders').select('orders.id').distinct();
  if (criteria.orderPk !== undefined) q = q.where('orders.order_pk', '=', criteria.orderPk);
  if (criteria.reference !== undefined) q = q.where('orders.reference', '=', criteria.reference);
  if (criteria.trackingCode !== undefined) {
    const code = criteria.trackingCode;
    q = q.where((eb) =>
      eb.exists(
        eb
          .selectFrom('shipments')
          .select('shipments.id')
          .whereRef('shipments.order_id', '=', 'orders.id')
          .where('shipments.tracking_code', '=', code),
      ),
    );
  }
  const rows = await q.orderBy('orders.id', 'desc').limit(criteria.limit).execute();
  return rows.map((r) => r.id);
};

/** Items of these orders with their current shipment, in the order sent. */
export const listItems = (db: Executor, orderIds: number[]) =>
  db
    .selectFrom('order_items as i')
    .leftJoin('shipments as s', 's.id', 'i.shipment_id')
    .select([
      'i.id',
      'i.order_id',
      'i.item_pk',
      'i.sku',
      'i.quantity',
      'i.price',
      'i.ff_type',
      'i.status',
      'i.shipment_id',
      's.carrier',
      's.tracking_code',
      's.delivery_time',
      's.comments',
      's.shipped_at',
      's.updated_at as shipment_updated_at',
    ])
    .where('i.order_id', 'in', orderIds)
    .orderBy('i.order_id')
    .orderBy('i.position')
    .execute();
export type ItemRow = Awaited<ReturnType<typeof listItems>>[number];

export const listShipments = (db: Executor, orderIds: number[]) =>
  db.selectFrom('shipments').selectAll().where('order_id', 'in', orderIds).orderBy('id').execute();
export type ShipmentRow = Awaited<ReturnType<typeof listShipments>>[number];

export const listHistory = (db: Executor, orderIds: number[]) =>
  db.selectFrom('order_history').selectAll().where('order_id', 'in', orderIds).orderBy('id').execute();
export type HistoryRow = Awaited<ReturnType<typeof listHistory>>[number];

export interface ShipmentData {
  carrier: string | null;
  tracking_code: string | null;
  delivery_time: number | null;
  comments: string | null;
}

/** A carrier + tracking code pair: one parcel. */
export interface Parcel {
  carrier: string;
  tracking_code: string;
}

/**
 * Serializes ships of the same tracking codes until the transaction ends (sorted: two
 * transactions never wait on each other's codes in a circle), so two shops cannot both claim
 * one parcel in the same instant.
 */
export async function lockTrackingCodes(db: Executor, codes: readonly string[]): Promise<void> {
  for (const code of [...new Set(codes)].sort())
    await sql`select pg_advisory_xact_lock(hashtextextended(${`tracking:${code}`}, 0))`.execute(db);
}

/**
 * The parcels among these that are on an open shipment of another shop: one with an item still
 * shipped, or still followed by tracking (not final) with items not cancelled. Carriers compare
 * case-insensitively, codes exactly.
 */
export async function parcelsOfOtherShops(db: Executor, shopPk: number, parcels: readonly Parcel[]): Promise<Parcel[]> {
  if (parcels.length === 0) return [];
  const rows = await db
    .selectFrom('shipments as s')
    .leftJoin('tracking_shipments as t', 't.shipment_id', 's.id')
    .select(['s.carrier', 's.tracking_code'])
    .where('s.shop_pk', '<>', shopPk)
    .where(
      's.tracking_code',
      'in',
      parcels.map((p) => p.tracking_code),
    )
    .where(
      sql<string>`lower(s.carrier)`,
      'in',
      parcels.map((p) => p.carrier.toLowerCase()),
    )
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('order_items as i')
          .select(sql`1`.as('one'))
          .whereRef('i.order_id', '=', 's.order_id')
          .whereRef('i.shipment_id', '=', 's.id')
          .where((w) => w.or([w('i.status', '=', 'shipped'), w.and([w('i.status', '<>', 'cancelled'), w('t.final', '=', false)])])),
      ),
    )
    .execute();
  const taken = new Set(rows.map((r) => `${r.carrier!.toLowerCase()}\u0000${r.tracking_code!}`));
  return parcels.filter((p) => taken.has(`${p.carrier.toLowerCase()}\u0000${p.tracking_code}`));
}

/** The order's row id, or undefined when (shop, marketplace, order_pk) names none. */
export const findOrderId = async (db: Executor, shopPk: number, marketplacePk: number, orderPk: number): Promise<number | undefined> =>
  (
    await db
      .selectFrom('orders')
      .select('id')
      .where('shop_pk', '=', shopPk)
      .where('marketplace_pk', '=', marketplacePk)
      .where('order_pk', '=', orderPk)
      .executeTakeFirst()
  )?.id;

export interface ModuleIntegrationData {
  module_name: string;
  /** '' when not sent. */
  type: string;
  status: string | null;
  message: string | null;
  reference: string | null;
  source: string;
}

export const listModuleIntegrations = (db: Executor, orderIds: number[]) =>
  db.selectFrom('order_module_integrations').selectAll().where('order_id', 'in', orderIds).orderBy('id').execute();
export type ModuleIntegrationRow = Awaited<ReturnType<typeof listModuleIntegrations>>[number];

export const insertModuleIntegration = (db: Executor, orderId: number, data: ModuleIntegrationData) =>
  db
    .insertInto('order_module_integrations')
    .values({ order_id: orderId, ...data })
    .returningAll()
    .executeTakeFirstOrThrow();

/**
 * Replaces the latest record of (order, module_name, type), or adds one; `created`: whether it
 * was new. The caller holds the order row's lock (lockOrders), so two PUTs do not both add.
 */
export const upsertModuleIntegration = async (
  db: Executor,
  orderId: number,
  data: ModuleIntegrationData,
): Promise<{ row: ModuleIntegrationRow; created: boolean }> => {
  const latest = await db
    .selectFrom('order_module_integrations')
    .select('id')
    .where('order_id', '=', orderId)
    .where('module_name', '=', data.module_name)
    .where('type', '=', data.type)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (latest === undefined) return { row: await insertModuleIntegration(db, orderId, data), created: true };
  const row = await db
    .updateTable('order_module_integrations')
    .set({ status: data.status, message: data.message, reference: data.reference, source: data.source, updated_at: sql<Date>`now()` })
    .where('id', '=', latest.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return { row, created: false };
};

/** Deletes one record of the order; the row deleted, or undefined when the order has none of that id. */
export const deleteModuleIntegration = (db: Executor, orderId: number, id: number) =>
  db.deleteFrom('order_module_integrations').where('order_id', '=', orderId).where('id', '=', id).returningAll().executeTakeFirst();

export interface OrderFilter {
  shopPk?: number;
  marketplacePk?: number;
  status?: string;
  /** Created at or after, before. */
  since?: Date;
  until?: Date;
}

const filtered = (db: Executor, f: OrderFilter) => {
  let q = db.selectFrom('orders');
  if (f.shopPk !== undefined) q = q.where('shop_pk', '=', f.shopPk);
  if (f.marketplacePk !== undefined) q = q.where('marketplace_pk', '=', f.marketplacePk);
  if (f.status !== undefined) q = q.where('status', '=', f.status);
  if (f.since !== undefined) q = q.where('created_at', '>=', f.since);
  if (f.until !== undefined) q = q.where('created_at', '<', f.until);
  return q;
};

/** Orders of every shop matching the filter (admin), newest first, one page. */
export const listAllOrders = (db: Executor, f: OrderFilter, offset: number, limit: number) =>
  filtered(db, f).select(orderColumns).orderBy('id', 'desc').offset(offset).limit(limit).execute();

export const countAllOrders = async (db: Executor, f: OrderFilter): Promise<number> =>
  Number(
    (
      await filtered(db, f)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );
