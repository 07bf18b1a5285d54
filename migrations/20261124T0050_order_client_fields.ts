// What the clients of the orders API read of an order and its items (fulfilment type, payment,
// billing address, tags), the records the shop's own systems keep against an order (module
// integrations), and history rows that move no item (a module integration: no `to_status`).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('orders')
    .addColumn('ff_type', 'text', (c) => c.notNull().defaultTo('seller'))
    .addColumn('payment_method', 'text')
    .addColumn('paid', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('billing_address', 'jsonb')
    .addColumn('tags', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'::text[]`))
    .execute();
  // An unknown shipping address is null (it was stored as {}).
  await sql`alter table orders alter column shipping_address drop not null, alter column shipping_address drop default`.execute(db);
  await sql`update orders set shipping_address = null where shipping_address = '{}'::jsonb`.execute(db);
  await db.schema
    .alterTable('order_items')
    .addColumn('ff_type', 'text', (c) => c.notNull().defaultTo('seller'))
    .execute();
  await sql`alter table order_history alter column to_status drop not null`.execute(db);

  await db.schema
    .createTable('order_module_integrations')
    .addColumn('id', 'bigint', (c) => c.generatedByDefaultAsIdentity().primaryKey())
    .addColumn('order_id', 'bigint', (c) => c.notNull().references('orders.id').onDelete('cascade'))
    .addColumn('module_name', 'text', (c) => c.notNull())
    // '' when not sent: with module_name, what a PUT replaces by (its latest record).
    .addColumn('type', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('status', 'text')
    .addColumn('message', 'text')
    .addColumn('reference', 'text')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex('order_module_integrations_order')
    .on('order_module_integrations')
    .columns(['order_id', 'module_name', 'type', 'id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('order_module_integrations').execute();
  // History is append-only (no update): rows that moved no item go.
  await sql`delete from order_history where to_status is null`.execute(db);
  await sql`alter table order_history alter column to_status set not null`.execute(db);
  await db.schema.alterTable('order_items').dropColumn('ff_type').execute();
  await sql`update orders set shipping_address = '{}'::jsonb where shipping_address is null`.execute(db);
  await sql`alter table orders alter column shipping_address set default '{}'::jsonb, alter column shipping_address set not null`.execute(
    db,
  );
  for (const c of ['tags', 'billing_address', 'paid', 'payment_method', 'ff_type'])
    await db.schema.alterTable('orders').dropColumn(c).execute();
}
