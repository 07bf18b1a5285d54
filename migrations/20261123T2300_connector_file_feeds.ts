import { sql, type Kysely } from 'kysely';

// The feeds a processed file was sent as: a byte-identical file is skipped only once every
// one of them is done with no item refused; until then it is read again (delta detection
// sends only what was not applied). Rows from before have none: skipped as before.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table connector_files add column feed_pks text[] not null default '{}'`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table connector_files drop column feed_pks`.execute(db);
}
