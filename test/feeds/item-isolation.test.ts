// One item the database refuses fails alone: its feed (and the feeds waiting with it) end
// `done`, that item with a `not_storable` error, every other item stored.
// Validation catches what it can (test/catalog/storable-values.test.ts), so the refusals here
// come from what it cannot see: a constraint this test adds to its own database, and items
// handed over as already validated (submitValidated, the catalog-file connector's path).
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, useTestDaemon, type TestDaemon } from '../helpers/daemon.ts';
import { product, waitFeed, type Feed } from '../catalog/catalog-helpers.ts';

const api = await useTestDaemon({ role: 'api' });
const app = api.app!;
const sql = new pg.Pool({ connectionString: api.database.url, max: 2 });
let worker: TestDaemon | null = null;
afterAll(async () => {
  await worker?.stop();
  await sql.end();
});
await sql.query(`alter table products add constraint test_no_poison check (sku not like 'POISON%')`);
await sql.query(`alter table variations add constraint test_no_poison_v check (sku not like 'POISON%')`);
const { shopPk, auth } = await api.shopWithKey();
const PRODUCTS = `/shops/${shopPk}/products/`;

const accept = async (payload: unknown, url = PRODUCTS): Promise<Feed> => {
  const res = await app.inject({ method: 'POST', url, headers: auth, payload: payload as object });
  expect(res.statusCode).toBe(201);
  return res.json() as Feed;
};
const stored = async (skus: string[]): Promise<string[]> =>
  (await sql.query(`select sku from products where shop_pk = $1 and sku = any($2) order by sku`, [shopPk, skus])).rows.map(
    (r: { sku: string }) => r.sku,
  );
const refusal = (index: number, sku: string, sqlstate: string) => ({
  index,
  sku,
  pointer: `/${index}`,
  code: 'not_storable',
  message: expect.stringContaining(`(SQLSTATE ${sqlstate})`),
});

// Accepted while no worker runs, so the worker finds them all waiting.
const small = await accept([product('GOOD-1'), product('POISON-1'), product('GOOD-2')]);
const big = await accept(Array.from({ length: 250 }, (_, i) => product(i === 137 ? 'POISON-BIG' : `BIG-${i}`)));
const neighbours = await Promise.all(Array.from({ length: 12 }, (_, i) => accept([product(i === 5 ? 'POISON-N' : `N-${i}`)])));
// Past validation, as the file connector hands items over: a stock beyond the int4 column.
const raw = await api.services.feedSubmit.submitValidated({
  shopPk,
  type: 'product_create',
  source: 'connector:test',
  items: [
    { sku: 'RAW-GOOD', json: JSON.stringify(product('RAW-GOOD')) },
    { sku: 'RAW-BAD', json: JSON.stringify({ ...product('RAW-BAD'), stock: 2_147_483_648 }) },
  ],
});

describe('a feed with an item the database refuses', () => {
  // The worker comes once every feed above waits; each test below waits for its own feed.
  beforeAll(async () => {
    worker = await startTestDaemon({ role: 'worker', database: api.database });
  });

  it('small feed: done, the item reported by index and sku, the others stored', async () => {
    const feed = await waitFeed(app, auth, small.url, 15_000);
    expect(feed).toMatchObject({ state: 'done', status: 'Complete', counts: { total: 3, processed: 3, succeeded: 2, failed: 1 } });
    expect(feed.result.errors).toEqual([refusal(1, 'POISON-1', '23514')]);
    expect(feed.result.errors[0]!.message).toMatch(/violates check constraint "test_no_poison"/);
    expect(feed.result.success.map((s) => [s.index, s.sku])).toEqual([
      [0, 'GOOD-1'],
      [2, 'GOOD-2'],
    ]);
    expect(await stored(['GOOD-1', 'GOOD-2', 'POISON-1'])).toEqual(['GOOD-1', 'GOOD-2']);
  });

  it('large feed (chunked): done, 249 of 250 stored, the bad one named at its index', async () => {
    const feed = await waitFeed(app, auth, big.url, 30_000);
    expect(feed).toMatchObject({ state: 'done', counts: { total: 250, processed: 250, succeeded: 249, failed: 1 } });
    expect(feed.result.errors).toEqual([refusal(137, 'POISON-BIG', '23514')]);
    expect(new Set(feed.result.success.map((s) => s.index)).size).toBe(249);
    expect(await stored(Array.from({ length: 250 }, (_, i) => `BIG-${i}`))).toHaveLength(249);
  });

  it('one-product feeds waiting together: only the bad one has an error, every neighbour is applied', async () => {
    const done = await Promise.all(neighbours.map((f) => waitFeed(app, auth, f.url, 15_000)));
    for (const [i, f] of done.entries()) {
      if (i === 5) {
        expect(f).toMatchObject({ state: 'done', counts: { succeeded: 0, failed: 1 } });
        expect(f.result.errors).toEqual([refusal(0, 'POISON-N', '23514')]);
      } else {
        expect(f).toMatchObject({ state: 'done', counts: { succeeded: 1, failed: 0 } });
        expect(f.result.success).toEqual([expect.objectContaining({ index: 0, sku: `N-${i}` })]);
      }
    }
    expect(await stored(Array.from({ length: 12 }, (_, i) => `N-${i}`))).toHaveLength(11);
  });

  it('items past validation: a stock beyond int4 fails alone (integer out of range)', async () => {
    const feed = await waitFeed(app, auth, `/feeds/${raw.pk}/`, 15_000);
    expect(feed).toMatchObject({ state: 'done', counts: { succeeded: 1, failed: 1 } });
    expect(feed.result.errors).toEqual([refusal(1, 'RAW-BAD', '22003')]);
    expect(feed.result.errors[0]!.message).toMatch(/out of range for type integer/);
    expect(await stored(['RAW-BAD', 'RAW-GOOD'])).toEqual(['RAW-GOOD']);
  });

  it('a variation feed: the refused variation fails alone', async () => {
    const feed = await waitFeed(app, auth, (await accept([product('HOST')])).url, 15_000);
    const productPk = feed.result.success[0]!.product_pk as number;
    const vfeed = await waitFeed(
      app,
      auth,
      (await accept([{ sku: 'V-1' }, { sku: 'POISON-V' }, { sku: 'V-2' }], `${PRODUCTS}${productPk}/variations/`)).url,
      15_000,
    );
    expect(vfeed).toMatchObject({ state: 'done', counts: { succeeded: 2, failed: 1 } });
    expect(vfeed.result.errors).toEqual([{ ...refusal(1, 'POISON-V', '23514'), parent_pk: productPk }]);
    const variations = (await app.inject({ url: `${PRODUCTS}${productPk}/variations/`, headers: auth })).json() as { sku: string }[];
    expect(variations.map((v) => v.sku).sort()).toEqual(['V-1', 'V-2']);
  });
});
