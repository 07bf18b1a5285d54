// All Kysely code of orders. Every function takes the pool or the caller's transaction first.
import { sql } from 'kysely';
import type { Executor } from '../db/database.ts';

export interface NewOrderRow {
  shop_pk: number;
  marketplace_pk: number;
  order_pk: number;
  reference: string | null;
  customer: Record<string, unknown>;
  shipping_address: Record<string, unknown>;
  shipping_cost: number | null;
  status: string;
  source: string;
}

/** Inserts the order unless it exists; the id, or undefined when (shop, marketplace, order_pk) was taken. */
export const insertOrder = async (db: Executor, row: NewOrderRow): Promise<number | undefined> => {
  const r = await db
    .insertInto('orders')
    .values({ ...row, customer: JSON.stringify(row.customer), shipping_address: JSON.stringify(row.shipping_address) })
    .onConflict((oc) => oc.columns(['shop_pk', 'marketplace_pk', 'order_pk']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return r?.id;
};

export const insertItems = (db: Executor, rows: { order_id: number; item_pk: number; position: number; sku: string; quantity: number; price: number; status: string }[]) =>
  db.insertInto('order_items').values(rows).execute();

export interface NewHistoryRow {
  order_id: number;
  action: string;
  item_pks: number[];
  from_status: string | null;
  to_status: string;
  source: string;
  shipment_id: number | null;
  details: Record<string, unknown> | null;
}

export const insertHistory = (db: Executor, rows: NewHistoryRow[]) =>
  db.insertInto('order_history').values(rows.map((r) => ({ ...r, details: r.details === null ? undefined : JSON.stringify(r.details) }))).execute();

const orderColumns = [
  'orders.id', 'orders.shop_pk', 'orders.marketplace_pk', 'orders.order_pk', 'orders.reference', 'orders.customer',
  'orders.shipping_address', 'orders.shipping_cost', 'orders.status', 'orders.created_at', 'orders.updated_at',
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

/**
 * The order's items with the order row and the item rows locked until the transaction ends
 * (SELECT ... FOR UPDATE OF orders, order_items): actions on one order run one after another.
 * Every row read is locked, so a waiter gets the versions the previous action committed (a
 * row read without a lock would keep this statement's older snapshot). No rows: no order.
 */
export const lockOrderItems = (db: Executor, shopPk: number, marketplacePk: number, orderPk: number) =>
  db
    .selectFrom('orders as o')
    .innerJoin('shops', 'shops.pk', 'o.shop_pk')
    .innerJoin('order_items as i', 'i.order_id', 'o.id')
    .select(['o.id as order_id', 'o.status as order_status', 'o.reference', 'i.id', 'i.item_pk', 'i.status', 'i.shipment_id'])
    .select(sql<boolean>`shops.webhook_url is not null`.as('has_webhook'))
    .where('o.shop_pk', '=', shopPk)
    .where('o.marketplace_pk', '=', marketplacePk)
    .where('o.order_pk', '=', orderPk)
    .orderBy('i.position')
    .forUpdate(['o', 'i'])
    .execute();
export type LockedItemRow = Awaited<ReturnType<typeof lockOrderItems>>[number];

export const findShipments = (db: Executor, ids: number[]) =>
  db.selectFrom('shipments').select(['id', 'carrier', 'tracking_code', 'delivery_time', 'comments']).where('id', 'in', ids).execute();

export interface ItemUpdate {
  id: number;
  status: string;
  /** The item goes into the new shipment written by the same statement. */
  new_shipment: boolean;
}

export type HistoryWrite = Omit<NewHistoryRow, 'order_id'> & { new_shipment: boolean };

export interface ActionWrite {
  orderId: number;
  orderStatus: string;
  items: ItemUpdate[];
  /** Rows with new_shipment get the new shipment's id. */
  history: HistoryWrite[];
  /** The shipment a ship action creates, if any. */
  shipment: (ShipmentData & { shop_pk: number; marketplace_pk: number; order_pk: number; item_pks: number[] }) | null;
}

/**
 * Writes one action's outcome in one statement (one round trip inside the transaction): the
 * new shipment, the items' new statuses, the history rows, and the order's derived status.
 */
export const applyChanges = (db: Executor, w: ActionWrite) => {
  // Only a ship that moves items creates a shipment; the other actions skip that part.
  const shipment = w.shipment === null
    ? sql`sh as (select null::bigint as id where false)`
    : sql`sh as (
        insert into shipments (order_id, shop_pk, marketplace_pk, order_pk, item_pks, carrier, tracking_code, delivery_time, comments)
        values (${w.orderId}, ${w.shipment.shop_pk}, ${w.shipment.marketplace_pk}, ${w.shipment.order_pk}, ${w.shipment.item_pks}::bigint[],
          ${w.shipment.carrier}, ${w.shipment.tracking_code}, ${w.shipment.delivery_time}::int, ${w.shipment.comments})
        returning id
      )`;
  return sql`
    with ${shipment}, upd as (
      update order_items i
      set status = v.status, shipment_id = case when v.new_shipment then (select id from sh) else i.shipment_id end
      from unnest(${w.items.map((i) => i.id)}::bigint[], ${w.items.map((i) => i.status)}::text[], ${w.items.map((i) => i.new_shipment)}::boolean[])
        as v(id, status, new_shipment)
      where i.id = v.id and i.order_id = ${w.orderId}
    ), hist as (
      insert into order_history (order_id, action, item_pks, from_status, to_status, source, shipment_id, details)
      select ${w.orderId}, h.action, h.item_pks, h.from_status, h.to_status, h.source,
        case when h.new_shipment then (select id from sh) else h.shipment_id end, h.details
      from jsonb_to_recordset(${JSON.stringify(w.history.map((h, n) => ({ ...h, n })))}::jsonb)
        as h(n int, action text, item_pks bigint[], from_status text, to_status text, source text, shipment_id bigint, new_shipment boolean, details jsonb)
      order by h.n
    )
    update orders set status = ${w.orderStatus}, updated_at = now() where id = ${w.orderId}
  `.execute(db);
};

export const listOrders = (db: Executor, shopPk: number, marketplacePk: number, status: string | undefined, offset: number, limit: number) => {
  let q = db.selectFrom('orders').select(orderColumns).where('shop_pk', '=', shopPk).where('marketplace_pk', '=', marketplacePk);
  if (status !== undefined) q = q.where('status', '=', status);
  return q.orderBy('id').offset(offset).limit(limit).execute();
};

export const countOrders = async (db: Executor, shopPk: number, marketplacePk: number, status: string | undefined): Promise<number> => {
  let q = db.selectFrom('orders').select((eb) => eb.fn.countAll<number>().as('n')).where('shop_pk', '=', shopPk).where('marketplace_pk', '=', marketplacePk);
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
    q = q.where((eb) => eb.exists(eb.selectFrom('shipments').select('shipments.id')
      .whereRef('shipments.order_id', '=', 'orders.id').where('shipments.tracking_code', '=', code)));
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
      'i.id', 'i.order_id', 'i.item_pk', 'i.sku', 'i.quantity', 'i.price', 'i.status', 'i.shipment_id',
      's.carrier', 's.tracking_code', 's.delivery_time', 's.comments', 's.shipped_at', 's.updated_at as shipment_updated_at',
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

export const updateShipment = (db: Executor, id: number, data: ShipmentData) =>
  db.updateTable('shipments').set({ ...data, updated_at: sql<Date>`now()` }).where('id', '=', id).execute();
