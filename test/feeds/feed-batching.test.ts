// Many small writes at once: concurrent POSTs share a commit (group commit at accept time), yet
// each feed has its own job and reads, once applied, exactly as if it had been alone.
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestDaemon, useTestDaemon } from '../helpers/daemon.ts';
import { pageOf, product, waitFeed, type Feed } from '../catalog/catalog-helpers.ts';

const api = await useTestDaemon({ role: 'api' });
const app = api.app!;
const sql = new pg.Pool({ connectionString: api.database.url, max: 2 });
afterAll(() => sql.end());
const { shopPk, auth } = await api.shopWithKey();
const PRODUCTS = `/shops/${shopPk}/products/`;

const write = async (method: 'POST' | 'PUT', payload: unknown): Promise<Feed> => {
  const res = await app.inject({ method, url: PRODUCTS, headers: auth, payload: payload as object });
  expect(res.statusCode).toBe(201);
  return res.json() as Feed;
};

describe('40 concurrent one-product writes, then one worker', () => {
  const accepted: Feed[] = [];

  it('are each answered 201 with their own feed and job, in fewer transactions than requests', async () => {
    const bodies: [method: 'POST' | 'PUT', payload: unknown][] = [
      ...Array.from({ length: 36 }, (_, i) => ['POST', [product(`GC-${i}`)]] as ['POST', unknown]),
      // The same sku twice: its feeds must read as one after the other (both variations kept).
      ['POST', [product('GC-TWIN', { variations: [{ sku: 'GC-TWIN-a' }] })]],
      [
        'POST',
        [
          product('GC-TWIN', {
            variations: [{ sku: 'GC-TWIN-b' }],
            images: [{ url: 'https://cdn.example/t.jpg', colour: 'unknown field' }],
          }),
        ],
      ],
      // A partial update of an unknown sku: an error of that feed only, at its own pointer.
      ['PUT', [{ sku: 'GC-NOWHERE', stock: 1 }]],
      ['POST', { ...product('GC-SINGLE'), images: [{ url: 'https://cdn.example/s.jpg', shade: 'unknown field' }] }],
    ];
    accepted.push(...(await Promise.all(bodies.map(([m, p]) => write(m, p)))));
    expect(new Set(accepted.map((f) => f.pk)).size).toBe(40);
    for (const f of accepted) expect(f).toMatchObject({ state: 'queued', status: 'Wait' });
    const rows = (
      await sql.query(
        `select f.pk, f.created_at, (select count(*)::int from pgboss.job j where j.name = 'feed.process' and j.data->>'feedPk' = f.pk::text) as jobs
       from feeds f where f.pk = any($1::uuid[])`,
        [accepted.map((f) => f.pk)],
      )
    ).rows as { created_at: Date; jobs: number }[];
    expect(rows).toHaveLength(40);
    expect(rows.every((r) => r.jobs === 1)).toBe(true);
    // now() is the transaction's start: feeds committed together share it.
    expect(new Set(rows.map((r) => r.created_at.getTime())).size).toBeLessThan(40);
  });

  it('are applied by a worker with per-feed results, counts and warnings, as if each had been alone', async () => {
    const worker = await startTestDaemon({ role: 'worker', database: api.database });
    try {
      const done = await Promise.all(accepted.map((f) => waitFeed(app, auth, f.url, 15_000)));
      for (const [i, f] of done.slice(0, 36).entries()) {
        expect(f).toMatchObject({
          state: 'done',
          status: 'Complete',
          counts: { total: 1, processed: 1, succeeded: 1, failed: 0, warnings: 0 },
        });
        expect(f.result.success).toEqual([expect.objectContaining({ index: 0, sku: `GC-${i}`, warning: [] })]);
      }
      const [twinA, twinB, update, single] = done.slice(36);
      expect(twinA!.result.success).toEqual([expect.objectContaining({ index: 0, sku: 'GC-TWIN', warning: [] })]);
      expect(twinB).toMatchObject({ counts: { succeeded: 1, warnings: 1 } });
      expect(twinB!.result.success[0]!.warning).toEqual(['/0/images/0/colour: unknown field, ignored']);
      expect(update).toMatchObject({ state: 'done', counts: { total: 1, succeeded: 0, failed: 1 } });
      expect(update!.result.errors).toEqual([expect.objectContaining({ index: 0, pointer: '/0/sku', code: 'not_found' })]);
      expect(single).toMatchObject({ counts: { succeeded: 1, warnings: 1 } });
      expect(single!.result.success[0]!.warnings).toEqual([expect.objectContaining({ pointer: '/0/images/0/shade' })]);

      const twin = pageOf<{ variations: { sku: string }[] }>(await app.inject({ url: `${PRODUCTS}?sku=GC-TWIN`, headers: auth }));
      expect(twin.total).toBe(1);
      expect(twin.items[0]!.variations.map((v) => v.sku).sort()).toEqual(['GC-TWIN-a', 'GC-TWIN-b']);
      const stored = (await sql.query(`select count(*)::int as n, count(distinct sku)::int as d from products where sku like 'GC-%'`))
        .rows[0];
      expect(stored).toEqual({ n: 38, d: 38 });
      const jobs = (await sql.query(`select state, count(*)::int as n from pgboss.job where name = 'feed.process' group by state`)).rows;
      expect(jobs).toEqual([{ state: 'completed', n: 40 }]);
    } finally {
      await worker.stop();
    }
  });
});
