import type { Kysely } from 'kysely';

// The process that holds a feed's lease ("<host>/<pid>/<start time>"): a process on the same
// host reclaims the feed at once when that process is provably gone, instead of waiting for
// the lease to run out.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('feeds').addColumn('owner', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('feeds').dropColumn('owner').execute();
}
