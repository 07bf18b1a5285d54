import { sql, type Kysely } from 'kysely';

// Webhooks the clients recognise:
// - every attempt to deliver an event is recorded (the dashboard's and admin API's view);
// - a rotated webhook secret keeps signing beside the new one for a while (Standard Webhooks
//   carries several signatures), so a receiver can switch without refusing a delivery;
// - an order keeps the {base_url} it was taken in under, so its events' Location is the URL
//   the client used, whoever moves the order later (a carrier connector has no request).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'bigint', (c) => c.generatedByDefaultAsIdentity().primaryKey())
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('shop_pk', 'bigint', (c) => c.notNull().references('shops.pk').onDelete('cascade'))
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('resource_pk', 'text')
    .addColumn('location', 'text')
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('started_at', 'timestamptz', (c) => c.notNull())
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('status', 'integer')
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('response_excerpt', 'text')
    .addColumn('error', 'text')
    .execute();
  await db.schema.createIndex('webhook_deliveries_message').on('webhook_deliveries').columns(['message_id', 'attempt']).execute();
  await db.schema.createIndex('webhook_deliveries_shop').on('webhook_deliveries').columns(['shop_pk', 'id desc']).execute();
  await db.schema.createIndex('webhook_deliveries_started').on('webhook_deliveries').column('started_at').execute();

  await db.schema
    .alterTable('shops')
    .addColumn('webhook_secret_previous', 'text')
    .addColumn('webhook_secret_previous_until', 'timestamptz')
    .execute();
  await db.schema.alterTable('orders').addColumn('base_url', 'text').execute();
  await sql`comment on column shops.webhook_secret is 'sealed with the key outside the database (WAYBILL_SECRET_KEY or <data dir>/secret.key)'`.execute(
    db,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('orders').dropColumn('base_url').execute();
  await db.schema.alterTable('shops').dropColumn('webhook_secret_previous').dropColumn('webhook_secret_previous_until').execute();
  await db.schema.dropTable('webhook_deliveries').execute();
}
