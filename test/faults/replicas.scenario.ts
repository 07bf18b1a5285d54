// Two replicas on one database: feeds sent to either are each processed once (by one of
// them), and a connector's cron tick runs once, not once per scheduler.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freshTarget, shopWithKey, spawnDaemon, until, type Outcome, type Scenario } from './harness.ts';

const FEEDS = 40;

const processedLines = (output: string): string[] =>
  output.split('\n').filter((l) => l.includes('"feed processed"')).map((l) => (JSON.parse(l) as { feedPk: string }).feedPk);

export const replicas: Scenario = {
  name: 'two-replicas',
  async run(): Promise<Outcome> {
    const target = await freshTarget();
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'waybill-replicas-'));
    const problems: string[] = [];
    const shop = await shopWithKey(target);
    const inbox = path.join(dir, 'inbox');
    await fs.mkdir(inbox);
    const configFile = path.join(dir, 'connectors.json');
    await fs.writeFile(configFile, JSON.stringify({ connectors: [{ name: 'erp', type: 'catalog-file', shop_pk: shop.shopPk, schedule: '* * * * *', enabled: true, options: { inbox, format: 'csv', settle_ms: 200 } }] }));
    const env = { ...target.env, WAYBILL_CONNECTORS: configFile };
    const a = await spawnDaemon(env);
    const b = await spawnDaemon(env);
    let runs: { scheduled_for: string; n: number }[];
    try {
      const locations: string[] = [];
      for (let i = 0; i < FEEDS; i++) {
        const replica = i % 2 === 0 ? a : b;
        const products = Array.from({ length: 20 }, (_, j) => ({ sku: `R${i}-${j}`, name: 'Replica', price: 1, stock: 1 }));
        const res = await fetch(`${replica.url}/shops/${shop.shopPk}/products/`, { method: 'POST', headers: shop.headers, body: JSON.stringify(products) });
        if (res.status !== 201) throw new Error(`POST answered ${res.status}`);
        locations.push(new URL(res.headers.get('location')!).pathname);
      }
      await until('every feed done', async () => {
        const r = await target.query<{ n: number }>(`select count(*)::int n from feeds where shop_pk = $1 and state = 'done'`, [shop.shopPk]);
        return r[0]?.n === FEEDS;
      });
      await fs.writeFile(path.join(inbox, 'catalog.csv'), 'sku,name,price,stock\nC1,From file,2,5\n');
      // Wait for two minute ticks to have passed, so each scheduler fired at least twice.
      runs = await until('two scheduled connector ticks', async () => {
        const r = await target.query<{ scheduled_for: string; n: number }>(
          `select scheduled_for::text, count(*)::int n from connector_runs where connector = 'erp' and trigger = 'schedule' group by 1 order by 1`);
        return r.length >= 2 ? r : null;
      }, 150_000, 1_000);
      const byA = processedLines(a.output());
      const byB = processedLines(b.output());
      const all = [...byA, ...byB];
      // The API's feeds and the one the dropped file became, each processed by one replica once.
      const once = new Set(all).size === FEEDS + 1 && all.length === FEEDS + 1;
      if (!once) problems.push(`feeds processed: ${all.length} times for ${new Set(all).size} feeds (A ${byA.length}, B ${byB.length})`);
      const doubled = runs.filter((r) => r.n !== 1);
      if (doubled.length > 0) problems.push(`ticks run more than once: ${JSON.stringify(doubled)}`);
      const fileProduct = await target.query<{ n: number }>(`select count(*)::int n from products where shop_pk = $1 and sku = 'C1'`, [shop.shopPk]);
      if (fileProduct[0]?.n !== 1) problems.push(`the dropped file's product is stored ${fileProduct[0]?.n} times`);
      return {
        pass: problems.length === 0,
        figures: { feeds: FEEDS, processed_by_a: byA.length, processed_by_b: byB.length, ticks: runs.length, runs_per_tick: runs.map((r) => r.n).join('/') },
        detail: problems.join('\n'),
      };
    } finally {
      for (const d of [a, b]) d.child.kill('SIGTERM');
      await Promise.all([a.exited, b.exited]);
      await target.close();
      await fs.rm(dir, { recursive: true, force: true });
    }
  },
};
