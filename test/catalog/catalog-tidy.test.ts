// After a large feed the catalog's tables are vacuumed and analysed by the worker itself
// (catalog.tidy), so a list right after a big import reads only its index, whenever
// autovacuum runs. Small feeds do not queue it.
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.ts';
import { until } from '../helpers/until.ts';
import { pageOf, product, waitFeed, write } from './catalog-helpers.ts';

const daemon = await useTestDaemon({ role: 'all' });
const app = daemon.app!;
const sql = new pg.Pool({ connectionString: daemon.database.url, max: 1 });
afterAll(() => sql.end());
const { shopPk, auth } = await daemon.shopWithKey();
const PRODUCTS = `/shops/${shopPk}/products/`;

const tidyJobs = async (): Promise<number> =>
  (await sql.query(`select count(*)::int n from pgboss.job where name = 'catalog.tidy' and state = 'completed'`)).rows[0].n as number;
const lastVacuum = async (): Promise<Date | null> =>
  (await sql.query(`select last_vacuum from pg_stat_user_tables where relname = 'products'`)).rows[0].last_vacuum as Date | null;

describe('catalog tidy after a large feed', () => {
  it('a small feed queues no tidy', async () => {
    await waitFeed(app, auth, (await write(app, auth, 'POST', PRODUCTS, [product('T-small')])).url);
    expect(await tidyJobs()).toBe(0);
  });

  it('a feed of 600 products is followed by a VACUUM (ANALYZE) of the catalog, and its list reads in pk order', async () => {
    const feed = await write(
      app,
      auth,
      'POST',
      PRODUCTS,
      Array.from({ length: 600 }, (_, i) => product(`T-${String(i).padStart(3, '0')}`)),
    );
    expect((await waitFeed(app, auth, feed.url, 30_000)).state).toBe('done');
    await until('the tidy job completed', async () => (await tidyJobs()) >= 1, 30_000, 50);
    expect(await lastVacuum()).not.toBeNull();
    const page = pageOf<{ sku: string }>(await app.inject({ method: 'GET', url: `${PRODUCTS}?page_size=100&page=7`, headers: auth }));
    expect(page.total).toBe(601);
    expect(page.items.map((p) => p.sku)).toEqual(['T-599']);
  });
});
