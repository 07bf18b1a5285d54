import type { Kysely } from 'kysely';

// An order's version, bumped by every action that writes to the order (its items, shipments,
// history, status). An action reads the order without a lock and writes only if the version
// is still the one it read (see applyChanges in src/orders/orders.repository.ts): one round
// trip for the read, one for the whole write, instead of a locking transaction's four.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('orders')
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('orders').dropColumn('version').execute();
}
