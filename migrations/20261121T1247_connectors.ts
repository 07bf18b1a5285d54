import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('connector_runs')
    .addColumn('id', 'bigint', (c) => c.generatedByDefaultAsIdentity().primaryKey())
    .addColumn('connector', 'text', (c) => c.notNull())
    .addColumn('trigger', 'text', (c) => c.notNull())
    .addColumn('scheduled_for', 'timestamptz')
    .addColumn('job_id', 'text')
    .addColumn('attempt', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('started_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('finished_at', 'timestamptz')
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('counts', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('error', 'text')
    .addColumn('feed_pks', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .execute();
  await db.schema.createIndex('connector_runs_by_connector').on('connector_runs').columns(['connector', 'id desc']).execute();

  await db.schema
    .createTable('connector_state')
    .addColumn('connector', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('value', 'jsonb', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('connector_state_pk', ['connector', 'key'])
    .execute();

  await db.schema
    .createTable('connector_settings')
    .addColumn('connector', 'text', (c) => c.primaryKey())
    .addColumn('enabled', 'boolean', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('connector_product_hashes')
    .addColumn('shop_pk', 'bigint', (c) => c.notNull().references('shops.pk').onDelete('cascade'))
    .addColumn('sku', 'text', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('connector_product_hashes_pk', ['shop_pk', 'sku'])
    .execute();

  await db.schema
    .createTable('connector_files')
    .addColumn('connector', 'text', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('file_name', 'text', (c) => c.notNull())
    .addColumn('run_id', 'bigint')
    .addColumn('done_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('connector_files_pk', ['connector', 'sha256'])
    .execute();

  await db.schema
    .createTable('connector_receipts')
    .addColumn('connector', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('status', 'integer')
    .addColumn('headers', 'jsonb')
    .addColumn('body', 'jsonb')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('connector_receipts_pk', ['connector', 'key'])
    .execute();
  await db.schema.createIndex('connector_receipts_created').on('connector_receipts').column('created_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of [
    'connector_receipts',
    'connector_files',
    'connector_product_hashes',
    'connector_settings',
    'connector_state',
    'connector_runs',
  ]) {
    await db.schema.dropTable(t).execute();
  }
}
