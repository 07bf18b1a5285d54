// A database that stops answering: every request that needs it gets 503 + Retry-After within
// WAYBILL_DB_TIMEOUT_MS, not minutes later; long work has its own, explicit limit.
import { afterAll, describe, expect, it } from 'vitest';
import { createDb, limitStatements, withTimeLimit } from '../../src/db/database.ts';
import { sql } from 'kysely';
import { isTransient } from '../../src/errors.ts';
import { loadConfig } from '../../src/config.ts';
import { createTestDatabase } from '../helpers/db.ts';
import { startTestDaemon } from '../helpers/daemon.ts';
import { freezableProxy } from '../helpers/freezable-proxy.ts';

const BOUND_MS = 1_500;
// Scheduling slack on a loaded machine: the answer must come at the bound, not at the next one.
const SLACK_MS = 1_500;

const database = await createTestDatabase();
const proxy = await freezableProxy(database.url);
afterAll(async () => {
  await proxy.close();
  await database.drop();
});

describe('WAYBILL_DB_TIMEOUT_MS', () => {
  it('is a documented setting with a default of 5 s', () => {
    expect(loadConfig({}).dbTimeoutMs).toBe(5_000);
    expect(loadConfig({ WAYBILL_DB_TIMEOUT_MS: '1500' }).dbTimeoutMs).toBe(1_500);
    expect(() => loadConfig({ WAYBILL_DB_TIMEOUT_MS: 'soon' })).toThrow(/WAYBILL_DB_TIMEOUT_MS/);
  });

  it('cancels a statement on the server after the bound (a transient error), and long work gets its own limit', async () => {
    const { db } = createDb({ connectionString: database.url, max: 2, timeoutMs: 300 });
    try {
      const started = Date.now();
      const error = await sql`select pg_sleep(3)`.execute(db).then(
        () => null,
        (e: unknown) => e,
      );
      expect(Date.now() - started).toBeLessThan(300 + SLACK_MS);
      expect((error as { code?: string }).code).toBe('57014');
      expect(isTransient(error)).toBe(true);
      // The connection stays usable.
      expect((await sql<{ one: number }>`select 1 as one`.execute(db)).rows).toEqual([{ one: 1 }]);
      // Long work: the same pool, its own limit, server and client side.
      await withTimeLimit(5_000, () =>
        db.transaction().execute(async (trx) => {
          await limitStatements(trx);
          await sql`select pg_sleep(0.6)`.execute(trx);
        }),
      );
    } finally {
      await db.destroy();
    }
  });

  it('answers 503 with Retry-After within the bound while the database does not answer, and recovers', async () => {
    const daemon = await startTestDaemon({ database, env: { DATABASE_URL: proxy.url, WAYBILL_DB_TIMEOUT_MS: String(BOUND_MS) } });
    try {
      const { shopPk, auth } = await daemon.shopWithKey();
      const list = () => fetch(`${daemon.url}/shops/${shopPk}/products/`, { headers: auth });
      expect((await list()).status).toBe(200);
      proxy.freeze();
      // Several at once: more than the pool's idle connections, so some wait for a new one.
      const timed = await Promise.all(
        Array.from({ length: 4 }, async () => {
          const started = Date.now();
          const res = await list();
          return {
            ms: Date.now() - started,
            status: res.status,
            retryAfter: res.headers.get('retry-after'),
            body: (await res.json()) as { status: number },
          };
        }),
      );
      for (const t of timed) {
        expect(t.status).toBe(503);
        expect(t.retryAfter).toMatch(/^\d+$/);
        expect(t.body.status).toBe(503);
        expect(t.ms).toBeLessThan(BOUND_MS + SLACK_MS);
      }
      const ready = await fetch(`${daemon.url}/readyz`);
      expect(ready.status).toBe(503);
      expect(ready.headers.get('retry-after')).toMatch(/^\d+$/);
      proxy.thaw();
      // Back by itself: connections that timed out were dropped, not reused.
      let status = 0;
      for (let i = 0; i < 100 && status !== 200; i++) {
        status = (await list()).status;
        if (status !== 200) await new Promise((r) => setTimeout(r, 100));
      }
      expect(status).toBe(200);
    } finally {
      proxy.thaw();
      await daemon.stop();
    }
  });
});
