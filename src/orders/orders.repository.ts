// All Kysely code of orders. Every function takes the pool or the caller's transaction first.
import { sql, type InferResult } from 'kysely';
import { queryPrepared, type Executor } from '../db/database.ts';

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

export const insertItems = (db: Executor, rows: { order_id: number; item_pk: number; position: number; sku: string; quantity: number; price: number; ff_type: string; status: string }[]) =>
  db.insertInto('order_items').values(rows).execute();

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
  db.insertInto('order_history').values(rows.map((r) => ({ ...r, details: r.details === null ? undefined : JSON.stringify(r.details) }))).execute();

const orderColumns = [
  'orders.id', 'orders.shop_pk', 'orders.marketplace_pk', 'orders.order_pk', 'orders.reference', 'orders.customer',
  'orders.shipping_address', 'orders.shipping_cost', 'orders.status', 'orders.created_at', 'orders.updated_at',
  'orders.billing_address', 'orders.ff_type', 'orders.payment_method', 'orders.paid', 'orders.tags', 'orders.base_url',
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
      'o.id as order_id', 'o.version', 'o.status as order_status', 'o.reference', 'o.base_url', 'i.id', 'i.item_pk', 'i.status', 'i.shipment_id',
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
  /** Whether the shop had a webhook when planned (the plan notifies or not): written only if it still has. */
  hasWebhook: boolean;
  orderStatus: string;
  items: ItemUpdate[];
  /** Rows with new_shipment get the new shipment's id. */
  history: HistoryWrite[];
  /** The shipment a ship action creates (with the items it holds), if any. */
  shipment: (ShipmentData & { item_pks: number[] }) | null;
  /** Existing shipments whose data a ship on already shipped items rewrites. */
  shipmentUpdates: (ShipmentData & { id: number })[];
}

// applyChanges' statement: one constant text whose parameters are the writes as JSON and their
// orders' ids, so it is prepared once per connection (planning it costs about as much as
// running it). `o` holds the orders updated, each only while its version is the one read;
// every other part joins `o` on the write's number `n`: no row there, nothing of that write
// anywhere. Each table is reached through `= any($2)`, the ids, on an index: the planner takes
// a JSON record set for 100 rows whatever it holds, and without them chose to scan the orders
// table whole for every batch once that looked cheaper (measured: 1,335 scans of 6,000 rows).
const APPLY_CHANGES = `
  with o as (
    update orders set status = w.order_status, version = orders.version + 1, updated_at = now()
    from jsonb_to_recordset($1::jsonb->'orders') as w(n int, order_id bigint, version int, has_webhook boolean, order_status text)
    where orders.id = any($2::bigint[]) and orders.id = w.order_id and orders.version = w.version
      and (select webhook_url is not null from shops where pk = orders.shop_pk) = w.has_webhook
    returning w.n, orders.id, orders.shop_pk, orders.marketplace_pk, orders.order_pk
  ), sh as (
    insert into shipments (order_id, shop_pk, marketplace_pk, order_pk, item_pks, carrier, tracking_code, delivery_time, comments)
    select o.id, o.shop_pk, o.marketplace_pk, o.order_pk, s.item_pks, s.carrier, s.tracking_code, s.delivery_time, s.comments
    from o join jsonb_to_recordset($1::jsonb->'shipments')
      as s(n int, item_pks bigint[], carrier text, tracking_code text, delivery_time int, comments text) on s.n = o.n
    returning id, order_id
  ), shu as (
    update shipments s
    set carrier = v.carrier, tracking_code = v.tracking_code, delivery_time = v.delivery_time, comments = v.comments, updated_at = now()
    from o join jsonb_to_recordset($1::jsonb->'shipmentUpdates')
      as v(n int, id bigint, carrier text, tracking_code text, delivery_time int, comments text) on v.n = o.n
    where s.order_id = any($2::bigint[]) and s.id = v.id and s.order_id = o.id
  ), upd as (
    update order_items i
    set status = v.status, shipment_id = case when v.new_shipment then (select sh.id from sh where sh.order_id = o.id) else i.shipment_id end
    from o join jsonb_to_recordset($1::jsonb->'items') as v(n int, id bigint, status text, new_shipment boolean) on v.n = o.n
    where i.order_id = any($2::bigint[]) and i.id = v.id and i.order_id = o.id
  ), hist as (
    insert into order_history (order_id, action, item_pks, from_status, to_status, source, shipment_id, details)
    select o.id, h.action, h.item_pks, h.from_status, h.to_status, h.source,
      case when h.new_shipment then (select sh.id from sh where sh.order_id = o.id) else h.shipment_id end, h.details
    from o join jsonb_to_recordset($1::jsonb->'history')
      as h(n int, k int, action text, item_pks bigint[], from_status text, to_status text, source text, shipment_id bigint, new_shipment boolean, details jsonb)
      on h.n = o.n
    order by h.n, h.k
  )
  select o.n, (select sh.id from sh where sh.order_id = o.id) as shipment_id from o`;

/** What a write did: the id of the shipment it created (null when it created none). */
export interface Applied {
  shipmentId: number | null;
}

/**
 * Writes the outcomes of actions on distinct orders in one statement, so atomically without a
 * transaction: each order's status and version, its new shipment, its rewritten shipments, its
 * items' new statuses and its history rows (in the order given). A write's parts run only if
 * its order row was updated, which happens only while the order's version is still
 * `w.version` (and the shop's having a webhook is still `w.hasWebhook`): under READ COMMITTED
 * an UPDATE that finds the row changed by a transaction committed since its snapshot (or waits
 * for one in flight) re-checks its WHERE on the newest version. That row lock, held to the end
 * of the statement (or of the caller's transaction), serializes the writers of one order, and
 * every writer of an order's items, shipments and history goes through here. One result per
 * write, in order: null when its order changed since it was read (or is gone) and nothing of it
 * was written. Two writes on one order in one call: not allowed (the caller's to prevent).
 */
export const applyChanges = async (db: Executor, writes: readonly ActionWrite[]): Promise<(Applied | null)[]> => {
  const flat = { orders: [] as unknown[], shipments: [] as unknown[], shipmentUpdates: [] as unknown[], items: [] as unknown[], history: [] as unknown[] };
  writes.forEach((w, n) => {
    flat.orders.push({ n, order_id: w.orderId, version: w.version, has_webhook: w.hasWebhook, order_status: w.orderStatus });
    if (w.shipment !== null) flat.shipments.push({ n, ...w.shipment });
    for (const u of w.shipmentUpdates) flat.shipmentUpdates.push({ n, ...u });
    for (const i of w.items) flat.items.push({ n, ...i });
    w.history.forEach((h, k) => flat.history.push({ n, k, ...h }));
  });
  const ids = writes.map((w) => w.orderId);
  const rows = await queryPrepared<{ n: number; shipment_id: number | null }>(db, APPLY_CHANGES, [JSON.stringify(flat), ids]);
  const out: (Applied | null)[] = writes.map(() => null);
  for (const r of rows) out[r.n] = { shipmentId: r.shipment_id };
  return out;
};

/** `marketplacePk` undefined: the orders of every marketplace. */
export const listOrders = (db: Executor, shopPk: number, marketplacePk: number | undefined, status: string | undefined, offset: number, limit: number) => {
  let q = db.selectFrom('orders').select(orderColumns).where('shop_pk', '=', shopPk);
  if (marketplacePk !== undefined) q = q.where('marketplace_pk', '=', marketplacePk);
  if (status !== undefined) q = q.where('status', '=', status);
  return q.orderBy('id').offset(offset).limit(limit).execute();
};

export const countOrders = async (db: Executor, shopPk: number, marketplacePk: number | undefined, status: string | undefined): Promise<number> => {
  let q = db.selectFrom('orders').select((eb) => eb.fn.countAll<number>().as('n')).where('shop_pk', '=', shopPk);
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
      'i.id', 'i.order_id', 'i.item_pk', 'i.sku', 'i.quantity', 'i.price', 'i.ff_type', 'i.status', 'i.shipment_id',
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

/** The order's row id, or undefined when (shop, marketplace, order_pk) names none. */
export const findOrderId = async (db: Executor, shopPk: number, marketplacePk: number, orderPk: number): Promise<number | undefined> =>
  (await db.selectFrom('orders').select('id').where('shop_pk', '=', shopPk).where('marketplace_pk', '=', marketplacePk)
    .where('order_pk', '=', orderPk).executeTakeFirst())?.id;

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
  db.insertInto('order_module_integrations').values({ order_id: orderId, ...data }).returningAll().executeTakeFirstOrThrow();

/**
 * Replaces the latest record of (order, module_name, type), or adds one; `created`: whether it
 * was new. The caller holds the order row's lock (lockOrder), so two PUTs do not both add.
 */
export const upsertModuleIntegration = async (db: Executor, orderId: number, data: ModuleIntegrationData): Promise<{ row: ModuleIntegrationRow; created: boolean }> => {
  const latest = await db.selectFrom('order_module_integrations').select('id').where('order_id', '=', orderId)
    .where('module_name', '=', data.module_name).where('type', '=', data.type).orderBy('id', 'desc').limit(1).executeTakeFirst();
  if (latest === undefined) return { row: await insertModuleIntegration(db, orderId, data), created: true };
  const row = await db.updateTable('order_module_integrations')
    .set({ status: data.status, message: data.message, reference: data.reference, source: data.source, updated_at: sql<Date>`now()` })
    .where('id', '=', latest.id).returningAll().executeTakeFirstOrThrow();
  return { row, created: false };
};

/** Deletes one record of the order; the row deleted, or undefined when the order has none of that id. */
export const deleteModuleIntegration = (db: Executor, orderId: number, id: number) =>
  db.deleteFrom('order_module_integrations').where('order_id', '=', orderId).where('id', '=', id).returningAll().executeTakeFirst();
