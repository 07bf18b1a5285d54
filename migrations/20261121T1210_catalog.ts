import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('products')
    .addColumn('pk', 'bigint', (c) => c.generatedByDefaultAsIdentity().primaryKey())
    .addColumn('shop_pk', 'bigint', (c) => c.notNull().references('shops.pk').onDelete('cascade'))
    .addColumn('sku', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('price', 'numeric', (c) => c.notNull())
    .addColumn('stock', 'integer', (c) => c.notNull())
    // Every other Product field, as sent (validated); one document keeps bulk upserts narrow.
    .addColumn('attrs', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('deleted_at', 'timestamptz')
    .addUniqueConstraint('products_shop_sku', ['shop_pk', 'sku'])
    .execute();
  await db.schema.createIndex('products_shop_updated').on('products').columns(['shop_pk', 'updated_at']).execute();

  await db.schema
    .createTable('product_images')
    .addColumn('pk', 'bigint', (c) => c.generatedByDefaultAsIdentity().primaryKey())
    .addColumn('product_pk', 'bigint', (c) => c.notNull().references('products.pk').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('product_images_product_url', ['product_pk', 'url'])
    .execute();

  await db.schema
    .createTable('variations')
    .addColumn('pk', 'bigint', (c) => c.generatedByDefaultAsIdentity().primaryKey())
    .addColumn('product_pk', 'bigint', (c) => c.notNull().references('products.pk').onDelete('cascade'))
    .addColumn('sku', 'text', (c) => c.notNull())
    // null: the product's price/stock apply.
    .addColumn('price', 'numeric')
    .addColumn('stock', 'integer')
    .addColumn('attrs', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('deleted_at', 'timestamptz')
    .addUniqueConstraint('variations_product_sku', ['product_pk', 'sku'])
    .execute();

  await db.schema
    .createTable('variation_images')
    .addColumn('variation_pk', 'bigint', (c) => c.notNull().references('variations.pk').onDelete('cascade'))
    .addColumn('image_pk', 'bigint', (c) => c.notNull().references('product_images.pk').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('variation_images_pk', ['variation_pk', 'image_pk'])
    .execute();
  await db.schema.createIndex('variation_images_image').on('variation_images').column('image_pk').execute();

  await db.schema
    .createTable('feeds')
    .addColumn('pk', 'uuid', (c) => c.primaryKey())
    .addColumn('shop_pk', 'bigint', (c) => c.notNull().references('shops.pk').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) =>
      c
        .notNull()
        .defaultTo('queued')
        .check(sql`state in ('queued', 'processing', 'done', 'failed')`),
    )
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('product_pk', 'bigint')
    .addColumn('variation_pk', 'bigint')
    // {base_url} when the feed was created: webhooks sent later name the same feed URL.
    .addColumn('base_url', 'text', (c) => c.notNull())
    .addColumn('total', 'integer', (c) => c.notNull())
    .addColumn('processed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('succeeded', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('failed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('warnings', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('criticals', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('started_at', 'timestamptz')
    .addColumn('finished_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('feeds_shop_created').on('feeds').columns(['shop_pk', 'created_at desc']).execute();
  await db.schema.createIndex('feeds_created').on('feeds').column('created_at').execute();

  await db.schema
    .createTable('feed_payloads')
    .addColumn('feed_pk', 'uuid', (c) => c.primaryKey().references('feeds.pk').onDelete('cascade'))
    .addColumn('items', 'jsonb', (c) => c.notNull())
    .addColumn('warnings', 'jsonb', (c) => c.notNull())
    .addColumn('skus', sql`text[]`, (c) => c.notNull())
    .execute();

  // One row per processed chunk, written in the chunk's transaction: a rerun finds it and
  // goes on after it, so a report is never written twice.
  await db.schema
    .createTable('feed_results')
    .addColumn('feed_pk', 'uuid', (c) => c.notNull().references('feeds.pk').onDelete('cascade'))
    .addColumn('offset', 'integer', (c) => c.notNull())
    .addColumn('success', 'jsonb', (c) => c.notNull())
    .addColumn('errors', 'jsonb', (c) => c.notNull())
    .addPrimaryKeyConstraint('feed_results_pk', ['feed_pk', 'offset'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['feed_results', 'feed_payloads', 'feeds', 'variation_images', 'variations', 'product_images', 'products']) {
    await db.schema.dropTable(t).execute();
  }
}
