// Orders (per shop and marketplace, keyed by the marketplace's own order_pk), their items,
// shipments (one row per package; an item re-shipped after not_delivered gets a new one) and
// an append-only history. Surrogate bigint ids for joins; the marketplace's ids as data.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('orders')
    .addColumn('id', 'bigint', (c) => c.generatedByDefaultAsIdentity().primaryKey())
    .addColumn('shop_pk', 'bigint', (c) => c.notNull().references('shops.pk').onDelete('cascade'))
    .addColumn('marketplace_pk', 'bigint', (c) => c.notNull().references('marketplaces.pk'))
    .addColumn('order_pk', 'bigint', (c) => c.notNull())
    .addColumn('reference', 'text')
    .addColumn('customer', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('shipping_address', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('shipping_cost', 'numeric')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('orders_shop_marketplace_order', ['shop_pk', 'marketplace_pk', 'order_pk'])
    .execute();
  await db.schema.createIndex('orders_list').on('orders').columns(['shop_pk', 'marketplace_pk', 'status', 'id']).execute();
  await db.schema.createIndex('orders_order_pk').on('orders').column('order_pk').execute();
  await db.schema.createIndex('orders_reference').on('orders').column('reference').where(sql.ref('reference'), 'is not', null).execute();

  await db.schema
    .createTable('shipments')
    .addColumn('id', 'bigint', (c) => c.generatedByDefaultAsIdentity().primaryKey())
    .addColumn('order_id', 'bigint', (c) => c.notNull().references('orders.id').onDelete('cascade'))
    .addColumn('shop_pk', 'bigint', (c) => c.notNull())
    .addColumn('marketplace_pk', 'bigint', (c) => c.notNull())
    .addColumn('order_pk', 'bigint', (c) => c.notNull())
    .addColumn('item_pks', sql`bigint[]`, (c) => c.notNull())
    .addColumn('carrier', 'text')
    .addColumn('tracking_code', 'text')
    .addColumn('delivery_time', 'integer')
    .addColumn('comments', 'text')
    .addColumn('shipped_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('shipments_order').on('shipments').column('order_id').execute();
  await db.schema
    .createIndex('shipments_tracking_code')
    .on('shipments')
    .column('tracking_code')
    .where(sql.ref('tracking_code'), 'is not', null)
    .execute();

  await db.schema
    .createTable('order_items')
    .addColumn('id', 'bigint', (c) => c.generatedByDefaultAsIdentity().primaryKey())
    .addColumn('order_id', 'bigint', (c) => c.notNull().references('orders.id').onDelete('cascade'))
    .addColumn('item_pk', 'bigint', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('sku', 'text', (c) => c.notNull())
    .addColumn('quantity', 'integer', (c) => c.notNull())
    .addColumn('price', 'numeric', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('shipment_id', 'bigint', (c) => c.references('shipments.id').onDelete('set null'))
    .addUniqueConstraint('order_items_order_item', ['order_id', 'item_pk'])
    .execute();

  await db.schema
    .createTable('order_history')
    .addColumn('id', 'bigint', (c) => c.generatedByDefaultAsIdentity().primaryKey())
    .addColumn('order_id', 'bigint', (c) => c.notNull().references('orders.id').onDelete('cascade'))
    .addColumn('at', 'timestamptz', (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('item_pks', sql`bigint[]`, (c) => c.notNull())
    .addColumn('from_status', 'text')
    .addColumn('to_status', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('shipment_id', 'bigint')
    .addColumn('details', 'jsonb')
    .execute();
  await db.schema.createIndex('order_history_order').on('order_history').columns(['order_id', 'id']).execute();
  // Append-only: history rows are never rewritten (deleting an order still removes them).
  await sql`create function order_history_append_only() returns trigger language plpgsql as $$
    begin raise exception 'order_history is append-only'; end $$`.execute(db);
  await sql`create trigger order_history_no_update before update on order_history
    for each row execute function order_history_append_only()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('order_history').execute();
  await sql`drop function if exists order_history_append_only()`.execute(db);
  for (const t of ['order_items', 'shipments', 'orders']) await db.schema.dropTable(t).execute();
}
