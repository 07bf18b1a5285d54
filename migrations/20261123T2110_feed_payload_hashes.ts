import { sql, type Kysely } from 'kysely';

// Content hashes of a connector's feed items (null: a feed that records none). The feed
// worker stores the hashes of the items it applied, in the chunk's transaction, so delta
// detection never takes a product that was not stored for one that was.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table feed_payloads add column hashes text[]`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table feed_payloads drop column hashes`.execute(db);
}
