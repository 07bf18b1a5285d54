import { sql, type Kysely } from 'kysely';

// Dashboard sessions, one row per login, shared by every replica: logging out deletes the row,
// so the cookie stops working everywhere at once. The cookie holds a random id; the row holds
// only its sha256, so a read of this table gives no usable session.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('admin_sessions')
    .addColumn('id_hash', 'text', (c) => c.primaryKey())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_seen_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('admin_sessions_expires').on('admin_sessions').column('expires_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('admin_sessions').execute();
}
