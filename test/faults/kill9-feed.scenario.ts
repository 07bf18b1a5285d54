// kill -9 mid-feed: a 10,000-product feed, the daemon killed at a random point of its
// processing (5 trials); after restart each feed resumes at once (its dead worker's process is
// gone, so the new process takes the feed over without waiting for a lease) and ends done,
// each product stored exactly once, and the report complete.
//
// What "exactly once" is checked by, since unique constraints cap the row counts whatever
// happens: exactly one success entry per item index (not a set of skus), one result record per
// chunk with exactly that chunk's indexes, counts that add up, and each chunk's rows
// (products, variations, images) last written by one transaction of their own (a chunk applied
// again by a later transaction leaves the rows it changed with that transaction's xmin, shared
// with the next chunk; rows whose values would not change are not rewritten, so a re-apply that
// changes nothing leaves no trace, and does no harm). A trial only counts when the kill landed while the feed was processing; a kill that
// came too late is retried, and counted.
import { freshTarget, shopWithKey, sleep, spawnDaemon, until, type Outcome, type Scenario } from './harness.ts';

const PRODUCTS = 10_000;
const CHUNK = 1_000;
const TRIALS = Number(process.env.KILL9_TRIALS ?? 5);
const MAX_LATE = 10;

interface FeedJson {
  pk: string;
  state: string;
  counts: { total: number; processed: number; succeeded: number; failed: number };
  result: { success: { index: number; sku: string }[]; errors: unknown[] };
}

const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

export const kill9Feed: Scenario = {
  name: 'kill9-mid-feed',
  async run(): Promise<Outcome> {
    const target = await freshTarget();
    let daemon = await spawnDaemon(target.env);
    const problems: string[] = [];
    const resumeSeconds: number[] = [];
    const finishSeconds: number[] = [];
    const startSeconds: number[] = [];
    let late = 0;
    try {
      const shop = await shopWithKey(target);
      for (let trial = 0, attempt = 0; trial < TRIALS; attempt++) {
        if (late > MAX_LATE) throw new Error(`${late} kills came after the feed was done: the scenario tests nothing`);
        const tag = `T${attempt}`;
        const products = Array.from({ length: PRODUCTS }, (_, i) => ({
          sku: `${tag}-${String(i).padStart(5, '0')}`,
          name: `Product ${i}`,
          price: 1 + (i % 100),
          stock: i % 7,
          variations: [{ sku: `${tag}-${i}-v1`, size: 'M' }],
          images: [`https://img.example.com/${tag}/${i}.jpg`],
        }));
        const res = await fetch(`${daemon.url}/shops/${shop.shopPk}/products/`, {
          method: 'POST',
          headers: shop.headers,
          body: JSON.stringify(products),
        });
        if (res.status !== 201) throw new Error(`POST answered ${res.status}: ${await res.text()}`);
        const location = res.headers.get('location')!;
        const path = new URL(location).pathname;
        const feedPk = path.split('/').at(-2)!;
        // Kill at a random point of the processing: once `processed` passes a random mark
        // (read from the database: cheaper than the feed's full report, polled this often).
        const mark = Math.floor(Math.random() * PRODUCTS * 0.9);
        await until(
          'processing to pass the mark',
          async () => {
            const [f] = await target.query<{ processed: number; state: string }>(`select processed, state from feeds where pk = $1`, [
              feedPk,
            ]);
            return f !== undefined && (f.processed >= mark || f.state === 'done');
          },
          120_000,
          20,
        );
        daemon.child.kill('SIGKILL');
        await daemon.exited;
        const [atKill] = await target.query<{ processed: number; state: string }>(`select processed, state from feeds where pk = $1`, [
          feedPk,
        ]);
        const restarted = Date.now();
        const restart = spawnDaemon(target.env);
        if (atKill?.state !== 'processing') {
          // Too late (or too early to tell): nothing was interrupted. Not a trial; try again.
          late++;
          daemon = await restart;
          await until(
            'the feed to finish',
            async () => (await target.query<{ state: string }>(`select state from feeds where pk = $1`, [feedPk]))[0]?.state === 'done',
            300_000,
            250,
          );
          continue;
        }
        // Resumed: the first chunk committed after the restart.
        const resumed = until(
          'the feed to resume after restart',
          async () => {
            const [f] = await target.query<{ processed: number; state: string }>(`select processed, state from feeds where pk = $1`, [
              feedPk,
            ]);
            return f !== undefined && (f.processed > atKill.processed || f.state !== 'processing') ? Date.now() : null;
          },
          300_000,
          50,
        );
        daemon = await restart;
        startSeconds.push((Date.now() - restarted) / 1000);
        resumeSeconds.push(((await resumed) - restarted) / 1000);
        const done = await until(
          'the feed to finish after restart',
          async () => {
            const f = (await (await fetch(`${daemon.url}${path}`, { headers: shop.headers })).json()) as FeedJson;
            return f.state === 'done' || f.state === 'failed' ? f : null;
          },
          300_000,
          250,
        );
        finishSeconds.push((Date.now() - restarted) / 1000);

        const like = `${tag}-%`;
        const [rows] = await target.query<{ n: number; skus: number }>(
          `select count(*)::int n, count(distinct sku)::int skus from products where shop_pk = $1 and sku like $2`,
          [shop.shopPk, like],
        );
        const [vars] = await target.query<{ n: number }>(
          `select count(*)::int n from variations v join products p on p.pk = v.product_pk where p.shop_pk = $1 and p.sku like $2`,
          [shop.shopPk, like],
        );
        const [images] = await target.query<{ n: number }>(
          `select count(*)::int n from product_images i join products p on p.pk = i.product_pk where p.shop_pk = $1 and p.sku like $2`,
          [shop.shopPk, like],
        );
        // One result record per chunk, each with exactly its chunk's indexes.
        const chunks = await target.query<{ offset: number; indexes: number[] }>(
          `select "offset", coalesce((select array_agg((e->>'index')::int order by (e->>'index')::int) from jsonb_array_elements(success) e), '{}') indexes
             from feed_results where feed_pk = $1 order by "offset"`,
          [feedPk],
        );
        const badChunks = chunks.filter(
          (c, k) => c.offset !== k * CHUNK || c.indexes.length !== CHUNK || c.indexes.some((x, j) => x !== c.offset + j),
        );
        // Each chunk's rows (products, their variations and images) last written by one
        // transaction, and no two chunks by the same one. (Products and variations whose values
        // do not change are not rewritten; an image's position always is.)
        const writers = await target.query<{ chunk: number; xmins: number; xmin: string }>(
          `with rows as (
             select p.sku, p.xmin::text x from products p where p.shop_pk = $1 and p.sku like $3
             union all select p.sku, v.xmin::text from variations v join products p on p.pk = v.product_pk where p.shop_pk = $1 and p.sku like $3
             union all select p.sku, i.xmin::text from product_images i join products p on p.pk = i.product_pk where p.shop_pk = $1 and p.sku like $3)
           select (substr(sku, length($2) + 1)::int / ${CHUNK}) chunk, count(distinct x)::int xmins, min(x) xmin from rows group by 1 order by 1`,
          [shop.shopPk, `${tag}-`, like],
        );
        const sharedWriters = writers.length - new Set(writers.map((w) => w.xmin)).size;
        const mixedChunks = writers.filter((w) => w.xmins !== 1).map((w) => w.chunk);
        // Exactly one success entry per item index.
        const perIndex = new Array<number>(PRODUCTS).fill(0);
        for (const s of done.result.success) if (s.index >= 0 && s.index < PRODUCTS) perIndex[s.index]!++;
        const missing = perIndex.filter((n) => n === 0).length;
        const doubled = perIndex.filter((n) => n > 1).length;

        const ok =
          done.state === 'done' &&
          rows?.n === PRODUCTS &&
          rows.skus === PRODUCTS &&
          vars?.n === PRODUCTS &&
          images?.n === PRODUCTS &&
          done.counts.succeeded === PRODUCTS &&
          done.counts.processed === PRODUCTS &&
          done.counts.failed === 0 &&
          done.result.success.length === PRODUCTS &&
          missing === 0 &&
          doubled === 0 &&
          done.result.errors.length === 0 &&
          chunks.length === PRODUCTS / CHUNK &&
          badChunks.length === 0 &&
          sharedWriters === 0 &&
          mixedChunks.length === 0;
        if (!ok) {
          problems.push(
            `trial ${trial}: killed at ${atKill.processed}; state=${done.state} products=${rows?.n} distinct=${rows?.skus} variations=${vars?.n} images=${images?.n} ` +
              `succeeded=${done.counts.succeeded} processed=${done.counts.processed} report=${done.result.success.length} missing=${missing} doubled=${doubled} ` +
              `chunk records=${chunks.length} bad=[${badChunks.map((c) => c.offset).join(',')}] chunks written by a shared transaction=${sharedWriters} by several=[${mixedChunks.join(',')}]`,
          );
        }
        trial++;
        await sleep(100);
      }
    } finally {
      daemon.child.kill('SIGTERM');
      await daemon.exited;
      await target.close();
    }
    return {
      pass: problems.length === 0,
      figures: {
        trials: TRIALS,
        late_kills_retried: late,
        products_per_feed: PRODUCTS,
        mean_start_s: mean(startSeconds).toFixed(1),
        mean_resume_s: mean(resumeSeconds).toFixed(1),
        max_resume_s: Math.max(...resumeSeconds).toFixed(1),
        mean_finish_s: mean(finishSeconds).toFixed(1),
        max_finish_s: Math.max(...finishSeconds).toFixed(1),
      },
      detail: problems.join('\n'),
    };
  },
};
