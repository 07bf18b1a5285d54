// One Postgres for the whole run: DATABASE_URL when set, else an embedded server in a temp
// folder. A migrated template database (app tables + job queue schema) is copied per test file.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { createDb } from '../../src/db/database.ts';
import { startEmbedded, type EmbeddedHandle } from '../../src/embedded-postgres/embedded-postgres.ts';
import { migrateToLatest } from '../../src/db/migrator.ts';
import { JobQueue } from '../../src/jobs/job-queue.ts';
import { createLogger } from '../../src/logger.ts';
import { databaseUrl } from '../helpers/db-url.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    dbAdminUrl: string;
    dbTemplate: string;
    dbRunTag: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const runTag = randomBytes(4).toString('hex');
  let embedded: EmbeddedHandle | null = null;
  let embeddedDir: string | null = null;
  let adminUrl = process.env.DATABASE_URL;
  if (adminUrl === undefined || adminUrl === '') {
    embeddedDir = path.join(os.tmpdir(), `waybill-test-${runTag}`);
    embedded = await startEmbedded({ dataDir: embeddedDir });
    adminUrl = embedded.connectionString;
  }
  const template = `wb_tpl_${runTag}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${template}`);
  const templateUrl = databaseUrl(adminUrl, template);
  const { db } = createDb({ connectionString: templateUrl, max: 2 });
  await migrateToLatest(db);
  await db.destroy();
  const queue = new JobQueue({ connectionString: templateUrl, logger: createLogger({ level: 'silent' }), supervise: false, max: 2 });
  await queue.start();
  await queue.stop(1_000);

  project.provide('dbAdminUrl', adminUrl);
  project.provide('dbTemplate', template);
  project.provide('dbRunTag', runTag);

  return async () => {
    // Drop this run's databases (test files drop their own; this catches a crashed one).
    const left = await admin.query<{ datname: string }>('select datname from pg_database where datname like $1', [`wb_%${runTag}%`]);
    for (const { datname } of left.rows) await admin.query(`drop database if exists ${datname} with (force)`).catch(() => undefined);
    await admin.end();
    if (embedded !== null) await embedded.release({ force: true });
    if (embeddedDir !== null) await fs.rm(embeddedDir, { recursive: true, force: true });
  };
}
