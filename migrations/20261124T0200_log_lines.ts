import { sql, type Kysely } from 'kysely';

// Log lines of every process (API, workers, scheduler), so the dashboard's Logs page shows them
// all, not only those of the process serving it. Bounded: each writer deletes the lines older
// than the newest N after its batch, so the table stays a few tens of MB.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('log_lines')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('time', 'timestamptz', (c) => c.notNull())
    // pino's numeric level: 10 trace ... 60 fatal, so "this level and above" is a range.
    .addColumn('level', 'smallint', (c) => c.notNull())
    .addColumn('msg', 'text', (c) => c.notNull())
    .addColumn('pid', 'integer')
    .addColumn('hostname', 'text')
    .addColumn('req_id', 'text')
    .addColumn('feed', 'text')
    .addColumn('run', 'text')
    .addColumn('job', 'text')
    .addColumn('fields', 'jsonb', (c) => c.notNull())
    .execute();
  for (const column of ['req_id', 'feed', 'run', 'job']) {
    await db.schema
      .createIndex(`log_lines_${column}`)
      .on('log_lines')
      .column(column)
      .where(sql<boolean>`${sql.ref(column)} is not null`)
      .execute();
  }
  // The overview's "errors logged per minute".
  await db.schema
    .createIndex('log_lines_errors')
    .on('log_lines')
    .column('time')
    .where(sql<boolean>`level >= 50`)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('log_lines').execute();
}
