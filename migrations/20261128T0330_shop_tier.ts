import { sql, type Kysely } from 'kysely';

// A shop's tier: its share of the feed workers (src/shops/shop-tiers.ts). Every shop starts
// `standard`; `waybill shops update <pk> --tier <name>` changes it.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('shops')
    .addColumn('tier', 'text', (c) => c.notNull().defaultTo(sql`'standard'`))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('shops').dropColumn('tier').execute();
}
