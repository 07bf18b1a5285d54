import type { Kysely } from 'kysely';

// orders.version is no longer read or written: an action locks the order row before it reads,
// so there is no unlocked read whose staleness a version would have to catch.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('orders').dropColumn('version').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('orders')
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}
