// Feeds that fail: a permanent error fails the feed at once, transient errors are retried until
// the budget runs out; either way the feed ends `failed` with a critical saying why, its job has
// one copy in the dead-letter queue, and the admin retry brings the feed to `done`.
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { queueSettings } from '../../src/jobs/job-map.ts';
import { useTestDaemon } from '../helpers/daemon.ts';
import { product, waitFeed, type Feed } from '../catalog/catalog-helpers.ts';
import { until } from '../helpers/until.ts';

const TOKEN = 'feed-failures-admin-token-0123456789';
const daemon = await useTestDaemon({ env: { WAYBILL_ADMIN_TOKEN: TOKEN } });
const app = daemon.app!;
const bearer = { authorization: `Bearer ${TOKEN}` };
const sql = new pg.Pool({ connectionString: daemon.database.url, max: 2 });
afterAll(() => sql.end());
const { shopPk, auth } = await daemon.shopWithKey();

// The database refuses new products whose sku starts with a listed prefix, with the listed
// SQLSTATE: P0001 (a plain raise: permanent) or 40001 (serialization failure: transient).
await sql.query(`create table wb_test_refusals (prefix text primary key, sqlstate text not null)`);
await sql.query(`create function wb_test_refuse() returns trigger language plpgsql as $$
  declare s text;
  begin
    select r.sqlstate into s from wb_test_refusals r where new.sku like r.prefix || '%';
    if s is not null then raise exception 'refused by the test' using errcode = s; end if;
    return new;
  end $$`);
await sql.query('create trigger wb_test_refuse before insert on products for each row execute function wb_test_refuse()');

interface JobRow {
  id: string;
  name: string;
  state: string;
  retry_count: number;
}
const jobOf = async (feedPk: string): Promise<JobRow | undefined> =>
  (
    await sql.query<JobRow>(
      `select id, name, state, retry_count from pgboss.job where name = 'feed.process' and data->>'feedPk' = $1 order by created_on limit 1`,
      [feedPk],
    )
  ).rows[0];
const deadCopiesOf = async (jobId: string) =>
  (
    await sql.query<{ name: string; state: string }>(`select name, state from pgboss.job where name like '%.dead' and source_id = $1`, [
      jobId,
    ])
  ).rows;

const submit = async (sku: string): Promise<Feed> => {
  const res = await app.inject({ method: 'POST', url: `/shops/${shopPk}/products/`, headers: auth, payload: [product(sku)] });
  expect(res.statusCode).toBe(201);
  return res.json() as Feed;
};

/** The admin retry of the feed (the database accepts its products again first): it ends done. */
async function retryToDone(feed: Feed, prefix: string): Promise<void> {
  await sql.query('delete from wb_test_refusals where prefix = $1', [prefix]);
  const res = await app.inject({ method: 'POST', url: `/admin/api/feeds/${feed.pk}/retry`, headers: bearer });
  expect(res.statusCode).toBe(202);
  expect(res.json()).toMatchObject({ pk: feed.pk, state: 'queued' });
  const done = await waitFeed(app, auth, feed.url, 10_000);
  expect(done).toMatchObject({ state: 'done', status: 'Complete', counts: { total: 1, succeeded: 1, failed: 0 } });
  expect(done.result.criticals).toEqual([]);
}

describe('a feed that fails', () => {
  it('on a permanent error: failed at its first attempt with a critical, dead-lettered once, then done after the admin retry', async () => {
    await sql.query(`insert into wb_test_refusals values ('PERM-', 'P0001')`);
    const feed = await submit('PERM-1');
    const failed = await waitFeed(app, auth, feed.url, 10_000);
    expect(failed).toMatchObject({ state: 'failed', status: 'Error' });
    expect(failed.result.criticals).toEqual([{ code: 'processing_failed', message: expect.stringContaining('could not be processed') }]);
    expect(JSON.stringify(failed.result.criticals)).not.toMatch(/refused by the test|P0001/);
    const job = await until('the job to settle', async () => {
      const j = await jobOf(feed.pk);
      return j !== undefined && !['created', 'active'].includes(j.state) ? j : undefined;
    });
    expect(job).toMatchObject({ state: 'failed', retry_count: 0 });
    expect(await deadCopiesOf(job.id)).toEqual([{ name: `${job.name}.dead`, state: 'created' }]);
    await retryToDone(feed, 'PERM-');
  });

  it('on transient errors: retried until the budget runs out, then failed (retries_exhausted), dead-lettered once, then done after the admin retry', async () => {
    await sql.query(`insert into wb_test_refusals values ('BUSY-', '40001')`);
    const feed = await submit('BUSY-1');
    await until('the job', () => jobOf(feed.pk));
    const limit = queueSettings['feed.process'].retryLimit;
    // Each retry waits its backoff (seconds, doubling): the test moves the wait to now and wakes
    // the worker, attempt after attempt, rather than waiting minutes.
    const job = await until(
      'the retries to run out',
      async () => {
        const j = (await jobOf(feed.pk))!;
        if (j.state === 'failed' || j.state === 'completed') return j;
        if (j.state === 'retry') {
          await sql.query(`update pgboss.job set start_after = now() where id = $1 and state = 'retry'`, [j.id]);
          daemon.jobs.wake('feed.process');
        }
        return undefined;
      },
      60_000,
    );
    expect(job).toMatchObject({ state: 'failed', retry_count: limit });
    const failed = await waitFeed(app, auth, feed.url);
    expect(failed).toMatchObject({ state: 'failed', status: 'Error' });
    expect(failed.result.criticals).toEqual([
      { code: 'retries_exhausted', message: expect.stringContaining(`after ${limit + 1} attempts`) },
    ]);
    expect(await deadCopiesOf(job.id)).toEqual([{ name: `${job.name}.dead`, state: 'created' }]);
    await retryToDone(feed, 'BUSY-');
  });
  it("the retry of its job's dead-letter copy (admin queue API) also brings the feed to done, and the copy leaves the queue", async () => {
    await sql.query(`insert into wb_test_refusals values ('DEAD-', 'P0001')`);
    const feed = await submit('DEAD-1');
    expect(await waitFeed(app, auth, feed.url, 10_000)).toMatchObject({ state: 'failed' });
    const job = await until('the job to fail', async () => {
      const j = await jobOf(feed.pk);
      return j?.state === 'failed' ? j : undefined;
    });
    const copy = (await sql.query<{ id: string; name: string }>(`select id, name from pgboss.job where source_id = $1`, [job.id])).rows[0]!;
    await sql.query(`delete from wb_test_refusals where prefix = 'DEAD-'`);
    const res = await app.inject({ method: 'POST', url: `/admin/api/queues/${copy.name}/jobs/${copy.id}/retry`, headers: bearer });
    expect(res.statusCode).toBe(200);
    expect(await waitFeed(app, auth, feed.url, 10_000)).toMatchObject({ state: 'done', counts: { succeeded: 1 } });
    expect(res.json()).toMatchObject({ ok: true, detail: `Feed ${feed.pk} of job ${copy.id} was queued again.` });
    const waiting = (await app.inject({ url: `/admin/api/queues/${copy.name}/jobs?state=created`, headers: bearer })).json() as {
      id: string;
    }[];
    expect(waiting.map((j) => j.id)).not.toContain(copy.id);
  });
});
