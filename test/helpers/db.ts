// A fresh database per test file, copied from the migrated template (fast: no migrations).
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { databaseUrl } from './db-url.ts';

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: inject('dbAdminUrl') });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `wb_t_${inject('dbRunTag')}_${randomBytes(4).toString('hex')}`;
  await admin(async (c) => {
    for (let attempt = 0; ; attempt++) {
      try {
        await c.query(`create database ${name} template ${inject('dbTemplate')}`);
        return;
      } catch (error) {
        // 55006: the template is busy (another file copying it right now): try again shortly.
        if ((error as { code?: string }).code !== '55006' || attempt > 50) throw error;
        await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
      }
    }
  });
  return {
    name,
    url: databaseUrl(inject('dbAdminUrl'), name),
    drop: () => admin(async (c) => void (await c.query(`drop database if exists ${name} with (force)`))),
  };
}
