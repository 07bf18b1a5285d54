import { sql, type Kysely } from 'kysely';

// Lists answer X-Total-Count. Counting a shop's live products on every request costs a scan of
// them all (1,000,000 products: about 250 ms a page), so the catalog writer keeps the count
// where it writes: `live` is changed in the statements that insert, revive and soft-delete
// products, in their transaction. A shop's count is spread over a few slots (the writing
// connection picks one), so concurrent feeds of one shop do not queue on one counter row; the
// count is the sum of its slots.
//
// Pages are found through `products_shop_live_pk`: the pks of page N come from this index alone
// (an index-only scan skipping the entries before it), never from the rows before the page.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('product_counts')
    .addColumn('shop_pk', 'bigint', (c) => c.notNull().references('shops.pk').onDelete('cascade'))
    .addColumn('slot', 'smallint', (c) => c.notNull())
    .addColumn('live', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('product_counts_pk', ['shop_pk', 'slot'])
    .execute();
  await sql`
    insert into product_counts (shop_pk, slot, live)
    select shop_pk, 0, count(*) from products where deleted_at is null group by shop_pk`.execute(db);
  await db.schema
    .createIndex('products_shop_live_pk')
    .on('products')
    .columns(['shop_pk', 'pk'])
    .where(sql.ref('deleted_at'), 'is', null)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('products_shop_live_pk').execute();
  await db.schema.dropTable('product_counts').execute();
}
