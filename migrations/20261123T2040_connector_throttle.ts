import { sql, type Kysely } from 'kysely';

// A run stopped by the remote API's Retry-After records until when the connector waits; the
// latest such run of a connector says whether it may run now (ticks, run now, other replicas,
// a restarted daemon). The partial index keeps that look-up to the few throttled runs.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('connector_runs').addColumn('throttled_until', 'timestamptz').execute();
  await db.schema
    .createIndex('connector_runs_throttled')
    .on('connector_runs')
    .columns(['connector', 'id desc'])
    .where(sql.ref('throttled_until'), 'is not', null)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('connector_runs_throttled').execute();
  await db.schema.alterTable('connector_runs').dropColumn('throttled_until').execute();
}
