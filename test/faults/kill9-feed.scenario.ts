// kill -9 mid-feed: a 10,000-product feed, the daemon killed at a random point of its
// processing (5 trials); after restart each feed ends done, each product stored exactly once,
// and the report complete.
import { freshTarget, shopWithKey, sleep, spawnDaemon, until, type Outcome, type Scenario } from './harness.ts';

const PRODUCTS = 10_000;
const TRIALS = Number(process.env.KILL9_TRIALS ?? 5);

interface FeedJson {
  pk: string;
  state: string;
  counts: { total: number; processed: number; succeeded: number; failed: number };
  result: { success: { sku: string }[]; errors: unknown[] };
}

export const kill9Feed: Scenario = {
  name: 'kill9-mid-feed',
  async run(): Promise<Outcome> {
    const target = await freshTarget();
    let daemon = await spawnDaemon(target.env);
    const problems: string[] = [];
    const recoverSeconds: number[] = [];
    try {
      const shop = await shopWithKey(target);
      for (let trial = 0; trial < TRIALS; trial++) {
        const products = Array.from({ length: PRODUCTS }, (_, i) => ({
          sku: `T${trial}-${String(i).padStart(5, '0')}`, name: `Product ${i}`, price: 1 + (i % 100), stock: i % 7,
          variations: [{ sku: `T${trial}-${i}-v1`, size: 'M' }], images: [`https://img.example.com/${trial}/${i}.jpg`],
        }));
        const res = await fetch(`${daemon.url}/shops/${shop.shopPk}/products/`, { method: 'POST', headers: shop.headers, body: JSON.stringify(products) });
        if (res.status !== 201) throw new Error(`POST answered ${res.status}: ${await res.text()}`);
        const location = res.headers.get('location')!;
        const path = new URL(location).pathname;
        // Kill at a random point of the processing: once `processed` passes a random mark.
        const mark = Math.floor(Math.random() * PRODUCTS * 0.9);
        const seen = await until('processing to pass the mark', async () => {
          const f = (await (await fetch(`${daemon.url}${path}`, { headers: shop.headers })).json()) as FeedJson;
          return f.counts.processed >= mark || f.state === 'done' ? f : null;
        }, 120_000, 20);
        daemon.child.kill('SIGKILL');
        await daemon.exited;
        const killedAt = seen.counts.processed;
        const restarted = Date.now();
        daemon = await spawnDaemon(target.env);
        const done = await until('the feed to finish after restart', async () => {
          const f = (await (await fetch(`${daemon.url}${path}`, { headers: shop.headers })).json()) as FeedJson;
          return f.state === 'done' || f.state === 'failed' ? f : null;
        }, 300_000, 250);
        recoverSeconds.push((Date.now() - restarted) / 1000);
        const rows = await target.query<{ n: number; skus: number }>(
          `select count(*)::int n, count(distinct sku)::int skus from products where shop_pk = $1 and sku like $2`, [shop.shopPk, `T${trial}-%`]);
        const vars = await target.query<{ n: number }>(
          `select count(*)::int n from variations v join products p on p.pk = v.product_pk where p.shop_pk = $1 and p.sku like $2`, [shop.shopPk, `T${trial}-%`]);
        const successSkus = new Set(done.result.success.map((s) => s.sku));
        const ok = done.state === 'done' && rows[0]?.n === PRODUCTS && rows[0]?.skus === PRODUCTS && vars[0]?.n === PRODUCTS
          && done.counts.succeeded === PRODUCTS && done.counts.processed === PRODUCTS && successSkus.size === PRODUCTS && done.result.errors.length === 0;
        if (!ok) problems.push(`trial ${trial}: killed at ${killedAt}; state=${done.state} products=${rows[0]?.n} distinct=${rows[0]?.skus} variations=${vars[0]?.n} succeeded=${done.counts.succeeded} report=${successSkus.size}`);
        await sleep(100);
      }
    } finally {
      daemon.child.kill('SIGTERM');
      await daemon.exited;
      await target.close();
    }
    return {
      pass: problems.length === 0,
      figures: { trials: TRIALS, products_per_feed: PRODUCTS, max_recovery_s: Math.max(...recoverSeconds).toFixed(1), mean_recovery_s: (recoverSeconds.reduce((a, b) => a + b, 0) / recoverSeconds.length).toFixed(1) },
      detail: problems.join('\n'),
    };
  },
};
