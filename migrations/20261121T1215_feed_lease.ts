import { sql, type Kysely } from 'kysely';

// A feed being processed holds a lease, renewed at every committed chunk. A lease that ran
// out means its worker died (kill -9, lost host): feed.recover queues the feed again.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('feeds').addColumn('leased_until', 'timestamptz').execute();
  await db.schema
    .createIndex('feeds_processing_lease')
    .on('feeds')
    .column('leased_until')
    .where(sql.ref('state'), '=', 'processing')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('feeds_processing_lease').execute();
  await db.schema.alterTable('feeds').dropColumn('leased_until').execute();
}
