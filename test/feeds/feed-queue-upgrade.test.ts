// A database upgraded from the version with a second feed queue (feed.process.small): the jobs
// waiting in it, and its dead-letter copies, move to feed.process (migration
// 20261124T0220_one_feed_queue), the old queues go, and the feeds are applied.
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { up } from '../../migrations/20261124T0220_one_feed_queue.ts';
import { startTestDaemon, useTestDaemon } from '../helpers/daemon.ts';
import { product, waitFeed } from '../catalog/catalog-helpers.ts';

const api = await useTestDaemon({ role: 'api' });
const app = api.app!;
const sql = new pg.Pool({ connectionString: api.database.url, max: 2 });
afterAll(() => sql.end());
const { shopPk, auth } = await api.shopWithKey();

describe('jobs left in feed.process.small by the previous version', () => {
  it('move to feed.process, dead-letter copies to feed.process.dead, and their feeds end done', async () => {
    // The previous version's queues, and jobs of theirs, as it left them.
    await api.jobs.boss.createQueue('feed.process.small.dead');
    await api.jobs.boss.createQueue('feed.process.small', { deadLetter: 'feed.process.small.dead' });
    const feeds = await Promise.all(
      ['UP-1', 'UP-2'].map(async (sku) => {
        const res = await app.inject({ method: 'POST', url: `/shops/${shopPk}/products/`, headers: auth, payload: [product(sku)] });
        expect(res.statusCode).toBe(201);
        return res.json() as { pk: string; url: string };
      }),
    );
    const pks = feeds.map((f) => f.pk);
    await sql.query(
      `update pgboss.job set name = 'feed.process.small', dead_letter = 'feed.process.small.dead' where name = 'feed.process' and data->>'feedPk' = any($1)`,
      [pks],
    );
    await api.jobs.boss.send('feed.process.small.dead', { feedPk: pks[0] });

    await up(api.connection.db);

    const jobs = (await sql.query(`select name, state, dead_letter from pgboss.job where data->>'feedPk' = any($1) order by name`, [pks]))
      .rows;
    expect(jobs).toEqual([
      { name: 'feed.process', state: 'created', dead_letter: 'feed.process.dead' },
      { name: 'feed.process', state: 'created', dead_letter: 'feed.process.dead' },
      { name: 'feed.process.dead', state: 'created', dead_letter: null },
    ]);
    const queues = (await sql.query(`select name from pgboss.queue where name like 'feed.process.small%'`)).rows;
    expect(queues).toEqual([]);

    const worker = await startTestDaemon({ role: 'worker', database: api.database });
    try {
      for (const f of feeds) expect(await waitFeed(app, auth, f.url, 15_000)).toMatchObject({ state: 'done', counts: { succeeded: 1 } });
    } finally {
      await worker.stop();
    }
  });
});
