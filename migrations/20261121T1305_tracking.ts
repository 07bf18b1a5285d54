// Carrier tracking: the tracking state of each shipment (what the carrier last said,
// when it was checked, its last error) and the carrier's events per shipment, deduplicated by a
// key of their content so a re-poll or a repeated webhook adds nothing.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('tracking_shipments')
    .addColumn('shipment_id', 'bigint', (c) => c.primaryKey().references('shipments.id').onDelete('cascade'))
    .addColumn('connector', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('unknown'))
    .addColumn('carrier_status', 'text')
    .addColumn('final', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('delivered_at', 'timestamptz')
    .addColumn('last_action', 'text')
    .addColumn('checks', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_checked_at', 'timestamptz')
    .addColumn('last_error', 'text')
    .addColumn('last_error_at', 'timestamptz')
    .addColumn('error_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('tracking_shipments_due').on('tracking_shipments').columns(['final', 'last_checked_at']).execute();

  await db.schema
    .createTable('tracking_events')
    .addColumn('id', 'bigint', (c) => c.generatedByDefaultAsIdentity().primaryKey())
    .addColumn('shipment_id', 'bigint', (c) => c.notNull().references('shipments.id').onDelete('cascade'))
    .addColumn('occurred_at', 'timestamptz', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('carrier_code', 'text')
    .addColumn('carrier_text', 'text')
    .addColumn('location', 'text')
    .addColumn('warning', 'text')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('dedupe_key', 'text', (c) => c.notNull())
    .addColumn('recorded_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('tracking_events_dedupe', ['shipment_id', 'dedupe_key'])
    .execute();
  await db.schema.createIndex('tracking_events_by_shipment').on('tracking_events').columns(['shipment_id', 'occurred_at']).execute();
  // Tracking connectors select shipments by carrier name, case-insensitively.
  await db.schema
    .createIndex('shipments_carrier_lower')
    .on('shipments')
    .expression(sql`lower(carrier)`)
    .where(sql.ref('tracking_code'), 'is not', null)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('shipments_carrier_lower').ifExists().execute();
  await db.schema.dropTable('tracking_events').execute();
  await db.schema.dropTable('tracking_shipments').execute();
}
