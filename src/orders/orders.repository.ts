// All Kysely code of orders. Every function takes the pool or the caller's transaction first.
import { sql, type InferResult } from 'kysely';
import { queryPrepared, type Executor } from '../db/database.ts';

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

const readQuery = (db: Executor, shopPk: number, marketplacePk: number, orderPk: number) =>
  db
    .selectFrom('orders as o')
    .innerJoin('shops', 'shops.pk', 'o.shop_pk')
    .innerJoin('order_items as i', 'i.order_id', 'o.id')
    .leftJoin('shipments as s', 's.id', 'i.shipment_id')
    .select([
      'o.id as order_id', 'o.version', 'o.status as order_status', 'o.reference', 'i.id', 'i.item_pk', 'i.status', 'i.shipment_id',
      's.carrier', 's.tracking_code', 's.delivery_time', 's.comments',
    ])
    .select(sql<boolean>`shops.webhook_url is not null`.as('has_webhook'))
    .where('o.shop_pk', '=', shopPk)
    .where('o.marketplace_pk', '=', marketplacePk)
    .where('o.order_pk', '=', orderPk)
    .orderBy('i.position');
export type OrderItemRow = InferResult<ReturnType<typeof readQuery>>[number];

/** readQuery's SQL text, compiled once: only its three values change from one action to the next. */
let readText: string | undefined;
const compiledReadText = (db: Executor): string => {
  const { sql: text, parameters } = readQuery(db, -1, -2, -3).compile();
  if (parameters.join() !== '-1,-2,-3') throw new Error(`readQuery's parameters are not (shop, marketplace, order): ${parameters.join()}`);
  return text;
};

/**
 * The order's items, each with its shipment's data, the order's version, status and reference,
 * and whether the shop has a webhook: what an action plans from, in one statement (one
 * consistent snapshot). No lock: applyChanges writes only if the version is still this one.
 * No rows: no such order. A prepared statement: planning this join costs several times what
 * running it does.
 */
export const readOrderItems = (db: Executor, shopPk: number, marketplacePk: number, orderPk: number): Promise<OrderItemRow[]> => {
  readText ??= compiledReadText(db);
  return queryPrepared<OrderItemRow>(db, readText, [shopPk, marketplacePk, orderPk]);
};

/**
 * Locks the order row until the transaction ends (the path of an action that lost its race
 * more than once: it reads after this, under the lock, and so cannot lose again).
 */
export const lockOrder = (db: Executor, shopPk: number, marketplacePk: number, orderPk: number) =>
  db
    .selectFrom('orders')
    .select('id')
    .where('shop_pk', '=', shopPk)
    .where('marketplace_pk', '=', marketplacePk)
    .where('order_pk', '=', orderPk)
    .forUpdate()
    .execute();

export interface ItemUpdate {
  id: number;
  status: string;
  /** The item goes into the new shipment written by the same statement. */
  new_shipment: boolean;
}

export type HistoryWrite = Omit<NewHistoryRow, 'order_id'> & { new_shipment: boolean };

export interface ActionWrite {
  orderId: number;
  /** The order's version the action was planned from: the write happens only if it is still current. */
  version: number;
  orderStatus: string;
  items: ItemUpdate[];
  /** Rows with new_shipment get the new shipment's id. */
  history: HistoryWrite[];
  /** The shipment a ship action creates (with the items it holds), if any. */
  shipment: (ShipmentData & { item_pks: number[] }) | null;
  /** Existing shipments whose data a ship on already shipped items rewrites. */
  shipmentUpdates: (ShipmentData & { id: number })[];
}

// applyChanges' statement: one constant text whose only parameter is the write as JSON, so it
// is prepared once per connection (planning it costs about as much as running it). Every part
// joins `o`, the order row updated only while its version is the one read: no row there, no
// write anywhere.
const APPLY_CHANGES = `
  with o as (
    update orders set status = $1::jsonb->>'orderStatus', version = version + 1, updated_at = now()
    where id = ($1::jsonb->>'orderId')::bigint and version = ($1::jsonb->>'version')::int
    returning id, shop_pk, marketplace_pk, order_pk
  ), sh as (
    insert into shipments (order_id, shop_pk, marketplace_pk, order_pk, item_pks, carrier, tracking_code, delivery_time, comments)
    select o.id, o.shop_pk, o.marketplace_pk, o.order_pk, s.item_pks, s.carrier, s.tracking_code, s.delivery_time, s.comments
    from o, jsonb_to_recordset($1::jsonb->'shipments')
      as s(item_pks bigint[], carrier text, tracking_code text, delivery_time int, comments text)
    returning id
  ), shu as (
    update shipments s
    set carrier = v.carrier, tracking_code = v.tracking_code, delivery_time = v.delivery_time, comments = v.comments, updated_at = now()
    from o, jsonb_to_recordset($1::jsonb->'shipmentUpdates')
      as v(id bigint, carrier text, tracking_code text, delivery_time int, comments text)
    where s.id = v.id and s.order_id = o.id
  ), upd as (
    update order_items i
    set status = v.status, shipment_id = case when v.new_shipment then (select id from sh) else i.shipment_id end
    from o, jsonb_to_recordset($1::jsonb->'items') as v(id bigint, status text, new_shipment boolean)
    where i.id = v.id and i.order_id = o.id
  ), hist as (
    insert into order_history (order_id, action, item_pks, from_status, to_status, source, shipment_id, details)
    select o.id, h.action, h.item_pks, h.from_status, h.to_status, h.source,
      case when h.new_shipment then (select id from sh) else h.shipment_id end, h.details
    from o, jsonb_to_recordset($1::jsonb->'history')
      as h(n int, action text, item_pks bigint[], from_status text, to_status text, source text, shipment_id bigint, new_shipment boolean, details jsonb)
    order by h.n
  )
  select id from o`;

/**
 * Writes one action's outcome in one statement, so atomically without a transaction: the
 * order's status and version, the new shipment, the rewritten shipments, the items' new
 * statuses and the history rows (in the order given). Every part runs only if the first one
 * updated the order row, which it does only while the order's version is still `w.version`:
 * under READ COMMITTED an UPDATE that finds the row changed by a transaction committed since
 * its snapshot (or waits for one in flight) re-checks its WHERE on the newest version. That
 * row lock, held to the end of the statement (or of the caller's transaction), serializes the
 * writers of one order, and every writer of an order's items, shipments and history goes
 * through here. false: the order changed since it was read (or is gone); nothing was written.
 */
export const applyChanges = async (db: Executor, w: ActionWrite): Promise<boolean> => {
  const json = JSON.stringify({
    orderId: w.orderId, version: w.version, orderStatus: w.orderStatus, items: w.items,
    shipments: w.shipment === null ? [] : [w.shipment], shipmentUpdates: w.shipmentUpdates,
    history: w.history.map((h, n) => ({ ...h, n })),
  });
  return (await queryPrepared<{ id: number }>(db, APPLY_CHANGES, [json])).length === 1;
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
