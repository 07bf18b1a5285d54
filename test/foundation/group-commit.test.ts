// GroupCommit: concurrent callers share transactions, each gets its own answer;
// one bad input fails only its caller; the database going away fails the whole batch.
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { createDb } from '../../src/db/database.ts';
import { GroupCommit } from '../../src/db/group-commit.ts';
import { unavailable, type AppError } from '../../src/errors.ts';
import { createTestDatabase } from '../helpers/db.ts';

const database = await createTestDatabase();
const { db } = createDb({ connectionString: database.url, max: 4 });
afterAll(async () => {
  await db.destroy();
  await database.drop();
});
await sql`create table gc_items (n integer primary key)`.execute(db);
const stored = async (): Promise<number[]> =>
  (await sql<{ n: number }>`select n from gc_items order by n`.execute(db)).rows.map((r) => r.n);

describe('GroupCommit', () => {
  it('writes 50 concurrent inputs in a few transactions and answers each with its own result', async () => {
    const batches: number[] = [];
    const gc = new GroupCommit<number, string>({
      db,
      lanes: 2,
      write: async (trx, ns) => {
        batches.push(ns.length);
        await sql`insert into gc_items select * from unnest(${ns}::int[])`.execute(trx);
        return ns.map((n) => `stored ${n}`);
      },
    });
    const answers = await Promise.all(Array.from({ length: 50 }, (_, n) => gc.submit(n)));
    expect(answers).toEqual(Array.from({ length: 50 }, (_, n) => `stored ${n}`));
    expect(await stored()).toEqual(Array.from({ length: 50 }, (_, n) => n));
    expect(batches.reduce((a, b) => a + b, 0)).toBe(50);
    expect(batches.length).toBeLessThan(10);
  });

  it('a write that fails for one input fails only that caller; the others are stored', async () => {
    await sql`truncate gc_items`.execute(db);
    const gc = new GroupCommit<number, number>({
      db,
      lanes: 1,
      write: async (trx, ns) => {
        // 13 makes the statement divide by zero: an error of that input, not a transient one.
        await sql`insert into gc_items select n from unnest(${ns}::int[]) as n where 1 / (n - 13) is not null`.execute(trx);
        return ns;
      },
    });
    const results = await Promise.allSettled(Array.from({ length: 20 }, (_, n) => gc.submit(n)));
    expect(
      results.filter((r) => r.status === 'rejected').map((r) => ((r as PromiseRejectedResult).reason as { code?: string }).code),
    ).toEqual(['22012']);
    expect((results[13] as PromiseRejectedResult).status).toBe('rejected');
    expect(await stored()).toEqual(Array.from({ length: 20 }, (_, n) => n).filter((n) => n !== 13));
  });

  it('a transient failure (database away) fails every caller of the batch, and nothing is stored', async () => {
    await sql`truncate gc_items`.execute(db);
    let calls = 0;
    const gc = new GroupCommit<number, number>({
      db,
      lanes: 1,
      write: async (trx, ns) => {
        calls++;
        await sql`insert into gc_items select * from unnest(${ns}::int[])`.execute(trx);
        throw unavailable('The database is not answering.');
      },
    });
    const results = await Promise.allSettled(Array.from({ length: 10 }, (_, n) => gc.submit(n)));
    expect(results.every((r) => r.status === 'rejected' && (r.reason as AppError).status === 503)).toBe(true);
    expect(calls).toBeLessThan(10); // not retried one by one
    expect(await stored()).toEqual([]);
  });
});
