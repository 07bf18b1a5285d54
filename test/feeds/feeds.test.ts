// Feed lifecycle against a real queue: an API-only daemon accepts feeds (they stay queued),
// then a full daemon on the same database works them.
import os from 'node:os';
import nock from 'nock';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { present } from '../../src/feeds/feeds.presenter.ts';
import { LEASE_SECONDS } from '../../src/feeds/feeds.repository.ts';
import { thisOwner } from '../../src/system/process-owner.ts';
import { verify } from '../../src/webhooks/signature.ts';
import { startTestDaemon, useTestDaemon, type TestDaemon } from '../helpers/daemon.ts';
import { expectProblem, pageOf, pathOf, product, waitFeed, type Feed } from '../catalog/catalog-helpers.ts';
import { until } from '../helpers/until.ts';

const api = await useTestDaemon({ role: 'api' });
const app = api.app!;
/** A full daemon on the same database, for one test or one describe (each starts its own). */
const startWorker = (): Promise<TestDaemon> => startTestDaemon({ role: 'all', database: api.database });
const sql = new pg.Pool({ connectionString: api.database.url, max: 4 });
afterAll(() => sql.end());
const { shopPk, auth } = await api.shopWithKey();
const PRODUCTS = `/shops/${shopPk}/products/`;

const jobsOf = async (feedPk: string) =>
  (
    await sql.query(
      `select state, retry_count from pgboss.job where name like 'feed.process%' and data->>'feedPk' = $1 order by created_on`,
      [feedPk],
    )
  ).rows as { state: string; retry_count: number }[];

const post = async (payload: unknown, headers: Record<string, string> = {}) => {
  const res = await app.inject({ method: 'POST' as const, url: PRODUCTS, headers: { ...auth, ...headers }, payload: payload as object });
  expect(res.statusCode).toBe(201);
  return res;
};

describe('before any worker runs', () => {
  it('a feed is queued (Wait), and a worker that died mid-way is detected by its lease and the feed queued again', async () => {
    const res = await post([product('Q-1')]);
    const feed = (await app.inject({ url: pathOf(res.headers.location), headers: auth })).json() as Feed;
    expect(feed).toMatchObject({ state: 'queued', status: 'Wait', started_at: null, finished_at: null });

    // As if a worker had taken it and been killed: job active, feed processing, lease run out.
    const dead = (await post([product('DEAD-1'), product('DEAD-2')])).json() as Feed;
    await sql.query(`update pgboss.job set state = 'active', started_on = now() where data->>'feedPk' = $1`, [dead.pk]);
    await sql.query(`update feeds set state = 'processing', started_at = now(), leased_until = now() - interval '1 second' where pk = $1`, [
      dead.pk,
    ]);
    expect(await api.services.feedRecovery.recover()).toEqual([dead.pk]);
    expect(await api.services.feedRecovery.recover()).toEqual([]); // the lease is renewed for the new job
    expect((await jobsOf(dead.pk)).map((j) => j.state)).toEqual(['active', 'created']);
    // A worker then comes: the recovered feed is done, both items applied once.
    const worker = await startWorker();
    try {
      expect(await waitFeed(app, auth, `/feeds/${dead.pk}/`)).toMatchObject({ state: 'done', counts: { succeeded: 2 } });
    } finally {
      await worker.stop();
    }
  });

  it('a feed whose worker process is gone (this host, pid not running) is taken back at once, not when its lease runs out', async () => {
    const host = os.hostname();
    // A pid no process has: past the kernel's pid_max.
    const goneOwner = `${host}/${4_194_305}/1`;
    const gone = (await post([product('GONE-1')])).json() as Feed;
    const alive = (await post([product('ALIVE-1')])).json() as Feed;
    const elsewhere = (await post([product('ELSEWHERE-1')])).json() as Feed;
    // Each with a lease of 10 s left, its last heartbeat 5 s ago.
    const hold = async (pk: string, owner: string) =>
      sql.query(
        `update feeds set state = 'processing', started_at = now(), leased_until = now() + interval '10 seconds', owner = $2 where pk = $1`,
        [pk, owner],
      );
    await hold(gone.pk, goneOwner);
    await hold(alive.pk, thisOwner()); // this process: running
    await hold(elsewhere.pk, `another-host-${host}/1/1`); // cannot be told: waits for its lease
    expect(await api.services.feedRecovery.recover()).toEqual([gone.pk]);
    expect(await api.services.feedRecovery.recover()).toEqual([]);
    // A heartbeat just now (the owner's pid gone or not): not taken yet.
    const fresh = (await post([product('FRESH-1')])).json() as Feed;
    await sql.query(
      `update feeds set state = 'processing', leased_until = now() + make_interval(secs => ${LEASE_SECONDS}), owner = $2 where pk = $1`,
      [fresh.pk, goneOwner],
    );
    expect(await api.services.feedRecovery.recover()).toEqual([]);
    (globalThis as { heldFeeds?: string[] }).heldFeeds = [gone.pk, alive.pk, elsewhere.pk, fresh.pk];
  });

  it("a worker process takes a dead worker's feed back by itself as it starts, long before the queue would retry its job", async () => {
    const dead = (await post([product('WATCH-1')])).json() as Feed;
    // Its job active (the queue fails it only after 30 s without a heartbeat), the feed held by a
    // process of this host that is gone, its last heartbeat 5 s ago.
    await sql.query(`update pgboss.job set state = 'active', started_on = now() where data->>'feedPk' = $1`, [dead.pk]);
    await sql.query(
      `update feeds set state = 'processing', started_at = now(), leased_until = now() + interval '10 seconds', owner = $2 where pk = $1`,
      [dead.pk, `${os.hostname()}/${4_194_305}/1`],
    );
    const worker = await startWorker();
    try {
      expect(await waitFeed(app, auth, `/feeds/${dead.pk}/`, 10_000)).toMatchObject({ state: 'done', counts: { succeeded: 1 } });
    } finally {
      await worker.stop();
    }
  });

  it('a job that fails once (feed locked elsewhere: transient) succeeds on retry', async () => {
    const feed = (await post([product('RETRY-1')])).json() as Feed;
    const holder = await sql.connect();
    let worker: TestDaemon | null = null;
    try {
      await holder.query('begin');
      await holder.query('select pk from feeds where pk = $1 for update', [feed.pk]);
      worker = await startWorker();
      await until('the first attempt to fail', async () => (await jobsOf(feed.pk))[0]?.state === 'retry');
      expect((await app.inject({ url: `/feeds/${feed.pk}/`, headers: auth })).json()).toMatchObject({ state: 'queued' });
      await holder.query('commit');
      const done = await waitFeed(app, auth, feed.url, 10_000);
      expect(done).toMatchObject({ state: 'done', counts: { succeeded: 1 } });
      // The job is completed once its handler returns, just after the feed's last commit.
      const jobs = await until('the job to complete', async () => {
        const j = await jobsOf(feed.pk);
        return j.every((x) => x.state !== 'active') ? j : undefined;
      });
      expect(jobs).toEqual([{ state: 'completed', retry_count: 1 }]);
    } finally {
      holder.release();
      await worker?.stop();
    }
  });
});

describe('with a worker', () => {
  let worker: TestDaemon | null = null;
  beforeAll(async () => {
    worker = await startWorker();
  });
  afterAll(async () => worker?.stop());

  it('goes queued -> processing -> done, waking the worker at once', async () => {
    const holder = await sql.connect();
    let res;
    try {
      await holder.query('begin');
      await holder.query('lock table products in share row exclusive mode');
      // Two chunks: `processing` shows from the start (a one-chunk feed goes queued -> done at once).
      res = await post(Array.from({ length: 1_001 }, (_, i) => product(`STATE-${i}`)));
      const processing = await until('processing', async () => {
        const f = (await app.inject({ url: pathOf(res!.headers.location), headers: auth })).json() as Feed;
        return f.state === 'processing' ? f : undefined;
      });
      expect(processing).toMatchObject({ status: 'Wait', finished_at: null });
      expect(processing.started_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
      await holder.query('commit');
    } finally {
      holder.release();
    }
    const started = Date.now();
    const done = await waitFeed(app, auth, res.headers.location);
    expect(done).toMatchObject({ state: 'done', status: 'Complete' });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('the process that accepts a feed wakes its worker at once; another replica finds it by polling', async () => {
    const local = worker!.app!;
    const t0 = Date.now();
    const res = await local.inject({ method: 'POST', url: PRODUCTS, headers: auth, payload: [product('FAST-1')] });
    await waitFeed(local, auth, res.headers.location);
    expect(Date.now() - t0).toBeLessThan(1_000);
    // Accepted by the API-only replica: the worker's next poll (every 2 s) takes it.
    const t1 = Date.now();
    await waitFeed(app, auth, (await post([product('POLLED-1')])).headers.location);
    expect(Date.now() - t1).toBeLessThan(4_000);
  });

  it('a job run twice (even at once) gives one result', async () => {
    const items = Array.from({ length: 1_500 }, (_, i) => product(`TWICE-${i}`, { variations: [{ sku: `TWICE-${i}-a` }] }));
    const feed = await api.services.feedSubmit.submit({ shopPk, type: 'product_create', items, source: 'connector:test' });
    // The worker and two more runs of the same feed, concurrently: chunks are taken under a
    // row lock, so each is applied once; a run that finds the feed busy fails as transient.
    const runs = await Promise.allSettled([api.services.feedProcess.process(feed.pk), api.services.feedProcess.process(feed.pk)]);
    for (const r of runs) if (r.status === 'rejected') expect((r.reason as { code?: string }).code).toBe('55P03');
    const done = await waitFeed(app, auth, `/feeds/${feed.pk}/`, 20_000);
    const again = await api.services.feedProcess.process(feed.pk);
    await api.jobs.send(api.connection.db, 'feed.process', { feedPk: feed.pk });
    await until('the second job', async () => (await jobsOf(feed.pk)).filter((j) => j.state === 'completed').length === 2);
    const after = await waitFeed(app, auth, `/feeds/${feed.pk}/`);
    expect(after).toEqual(done);
    expect(again?.counts).toEqual({ total: 1_500, processed: 1_500, succeeded: 1_500, failed: 0, warnings: 0 });
    expect(done.result.success.map((s) => s.index)).toEqual(items.map((_, i) => i));
    const n = (await sql.query(`select count(*)::int as n, count(distinct sku)::int as d from products where sku like 'TWICE-%'`)).rows[0];
    expect(n).toEqual({ n: 1_500, d: 1_500 });
    expect((await sql.query(`select count(*)::int as n from variations where sku like 'TWICE-%'`)).rows[0].n).toBe(1_500);
    expect((await sql.query('select count(*)::int as n from feed_results where feed_pk = $1', [feed.pk])).rows[0].n).toBe(2);
  });

  it('Idempotency-Key: the same key and body replays the first reply; another body is 422', async () => {
    const headers = { 'idempotency-key': 'idem-feed-1' };
    const first = await post([product('IDEM-1')], headers);
    const second = await post([product('IDEM-1')], headers);
    expect(second.headers.location).toBe(first.headers.location);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect((second.json() as Feed).pk).toBe((first.json() as Feed).pk);
    expect(
      (await sql.query(`select count(*)::int as n from feeds f join feed_payloads p on p.feed_pk = f.pk where 'IDEM-1' = any(p.skus)`))
        .rows[0].n,
    ).toBe(1);
    expectProblem(
      await app.inject({ method: 'POST', url: PRODUCTS, headers: { ...auth, ...headers }, payload: [product('IDEM-2')] }),
      422,
      'idempotency_key_reused',
    );
    // Every catalog write honours it, the variation ones too.
    const pk = (await waitFeed(app, auth, first.headers.location)).result.success[0]!.product_pk as number;
    const url = `${PRODUCTS}${pk}/variations/`;
    const v1 = await app.inject({
      method: 'POST',
      url,
      headers: { ...auth, ...headers, 'idempotency-key': 'idem-var' },
      payload: [{ sku: 'IDEM-1-a' }],
    });
    const v2 = await app.inject({
      method: 'POST',
      url,
      headers: { ...auth, ...headers, 'idempotency-key': 'idem-var' },
      payload: [{ sku: 'IDEM-1-a' }],
    });
    expect([v1.statusCode, v2.statusCode, v2.headers.location]).toEqual([201, 201, v1.headers.location]);
  });

  it("lists a shop's feeds by state and type, without per-item results", async () => {
    const res = await app.inject({ url: `/shops/${shopPk}/feeds/?state=done&type=product_create&page_size=2`, headers: auth });
    expect(res.statusCode).toBe(200);
    expect(res.headers.allow).toBe('GET, OPTIONS');
    const page = pageOf<Feed>(res);
    expect(page.total).toBeGreaterThan(2);
    expect(page.links.next).toContain('page=2');
    expect(page.links.next).toContain('state=done');
    for (const f of page.items) {
      expect(f).toMatchObject({ state: 'done', status: 'Complete', type: 'product_create', shop_pk: shopPk });
      expect(f).not.toHaveProperty('result');
    }
    expectProblem(await app.inject({ url: `/shops/${shopPk}/feeds/?state=lost`, headers: auth }), 400, 'validation_failed');
  });

  it('connectors submit feeds too, under their own source and the default base URL', async () => {
    const feed = await api.services.feedSubmit.submit({
      shopPk,
      type: 'product_create',
      items: [product('CONN-1', { images: [{ url: 'https://cdn.example/c.jpg', x: 1 }] })],
      source: 'connector:erp-main',
    });
    const json = present(feed, api.services.feedSubmit.defaultBaseUrl);
    expect(json).toMatchObject({ source: 'connector:erp-main', url: `http://127.0.0.1:0/feeds/${feed.pk}/`, status: 'Wait' });
    const done = await waitFeed(app, auth, `/feeds/${feed.pk}/`);
    expect(done.result.success[0]!.warning).toEqual(['/0/images/0/x: unknown field, ignored']);
    expect(done.result.success[0]!.warnings).toEqual([
      { pointer: '/0/images/0/x', code: 'unknown_field', message: 'unknown field, ignored' },
    ]);
    await expect(
      api.services.feedSubmit.submit({ shopPk, type: 'product_create', items: [{ sku: 'NO-NAME' }], source: 'connector:erp-main' }),
    ).rejects.toMatchObject({ status: 400, errors: [{ pointer: '/0/name' }, { pointer: '/0/price' }, { pointer: '/0/stock' }] });
  });

  it('items a trusted caller already validated (submitValidated, as JSON text) are recorded and applied like submitted ones', async () => {
    const items = [product('PRE-1', { variations: [{ sku: 'PRE-1-a', stock: 2 }] }), product('PRE-2')];
    const feed = await api.services.feedSubmit.submitValidated({
      shopPk,
      type: 'product_create',
      items: items.map((p) => ({ sku: p.sku, json: JSON.stringify(p) })),
      source: 'connector:erp-main',
    });
    expect(feed).toMatchObject({ source: 'connector:erp-main', state: 'queued', counts: { total: 2 } });
    expect((await sql.query('select skus from feed_payloads where feed_pk = $1', [feed.pk])).rows[0].skus).toEqual(['PRE-1', 'PRE-2']);
    const done = await waitFeed(app, auth, `/feeds/${feed.pk}/`);
    expect(done.counts).toEqual({ total: 2, processed: 2, succeeded: 2, failed: 0, warnings: 0 });
    expect(done.result.success.map((s) => [s.index, s.sku])).toEqual([
      [0, 'PRE-1'],
      [1, 'PRE-2'],
    ]);
    const stored = pageOf(await app.inject({ url: `${PRODUCTS}?sku=PRE-1`, headers: auth }));
    expect(stored.items[0]).toMatchObject({ name: 'Product PRE-1', variations: [{ sku: 'PRE-1-a', stock: 2 }] });
    await expect(
      api.services.feedSubmit.submitValidated({ shopPk, type: 'product_create', items: [], source: 'connector:erp-main' }),
    ).rejects.toMatchObject({ status: 400, errors: [{ pointer: '', code: 'too_few' }] });
  });

  it("feed.completed goes to the shop's webhook, signed per Standard Webhooks, retried after a 5xx", async () => {
    const hooked = await api.services.shops.create({ name: 'Hooked', webhook_url: 'https://hooks.example.test/waybill' });
    const { key } = await api.services.shops.createKey(hooked.pk);
    const received: { headers: Record<string, string>; body: string }[] = [];
    nock.disableNetConnect();
    nock.enableNetConnect(/127\.0\.0\.1|localhost/);
    // The receiver answers 503 first (retried), then 204.
    const scope = nock('https://hooks.example.test').post('/waybill').reply(503).post('/waybill').reply(204);
    scope.on('request', (req: { headers: Headers }, _interceptor: unknown, body: string) =>
      received.push({ headers: Object.fromEntries(req.headers.entries()), body }),
    );
    try {
      const res = await app.inject({
        method: 'POST',
        url: `/shops/${hooked.pk}/products/`,
        headers: { authorization: `Token ${key}` },
        payload: [product('HOOK-1')],
      });
      const feed = await waitFeed(app, { authorization: `Token ${key}` }, res.headers.location);
      await until('the webhook', async () => scope.isDone(), 15_000);
      const { secret } = (await api.services.shops.webhookTarget(hooked.pk))!;
      expect(received).toHaveLength(2);
      expect(received[1]!.headers['webhook-id']).toBe(received[0]!.headers['webhook-id']);
      expect(verify(secret, received[1]!.headers, received[1]!.body)).toEqual({ ok: true });
      expect(verify('whsec_' + Buffer.from('another secret').toString('base64'), received[1]!.headers, received[1]!.body)).toMatchObject({
        ok: false,
      });
      expect(JSON.parse(received[0]!.body)).toEqual({
        event: 'product_feed:feed:finish',
        type: 'feed.completed',
        location: res.headers.location,
        pk: feed.pk,
        shop_pk: hooked.pk,
        state: 'done',
        status: 'Complete',
      });
      expect(received[0]!.headers['webhook-id']).toMatch(/^msg_/);
    } finally {
      nock.cleanAll();
      nock.enableNetConnect();
    }
  });

  it('feeds older than 30 days are pruned (with payload and results)', async () => {
    const feed = (await post([product('OLD-1')])).json() as Feed;
    await waitFeed(app, auth, feed.url);
    await sql.query(`update feeds set created_at = now() - interval '31 days' where pk = $1`, [feed.pk]);
    expect(await api.services.feedPrune.prune()).toBe(1);
    expectProblem(await app.inject({ url: `/feeds/${feed.pk}/`, headers: auth }), 404, 'not_found');
    expect(
      (
        await sql.query(
          'select (select count(*) from feed_payloads where feed_pk = $1)::int + (select count(*) from feed_results where feed_pk = $1)::int as n',
          [feed.pk],
        )
      ).rows[0].n,
    ).toBe(0);
  });
});
