// What clients and files send must not crash waybill or lose accepted data:
// - huge-request: bodies that once ran the daemon out of memory (3,000,000-element arrays,
//   millions of objects or members, a million field errors) answered at once, the daemon's
//   memory bounded, and a valid 10,000-product write between them stored whole;
// - unstorable-item: items the database refuses (a constraint validation cannot see) in a
//   chunked feed and in one-item feeds: each fails alone, every other
//   item is stored, every feed ends done;
// - file-delta: a catalog file whose items partly fail at apply; dropped again, the failed
//   products are sent again and the applied ones count as unchanged.
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  freshTarget,
  runCli,
  shopWithKey,
  spawnDaemon,
  until,
  type DaemonProcess,
  type Outcome,
  type Scenario,
  type ShopKey,
  type Target,
} from './harness.ts';

/** Resident memory of the daemon's node process (bin/waybill.js may run it as its child), MB. */
function rssMb(daemon: DaemonProcess): number {
  let pid = daemon.child.pid!;
  for (;;) {
    const kids = (() => {
      try {
        return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
      } catch {
        return [];
      }
    })();
    if (kids.length === 0) break;
    pid = Number(kids[0]);
  }
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

const ones = (n: number): string => `[${new Array(n).fill('1').join(',')}]`;
const alive = (d: DaemonProcess): Promise<boolean> =>
  fetch(`${d.url}/healthz`).then(
    (r) => r.status === 200,
    () => false,
  );
const feedDone = (d: DaemonProcess, shop: ShopKey, location: string, ms = 120_000) =>
  until(
    `feed ${location}`,
    async () => {
      const f = (await (await fetch(`${d.url}${new URL(location).pathname}`, { headers: shop.headers })).json()) as FeedJson;
      return f.state === 'done' || f.state === 'failed' ? f : null;
    },
    ms,
    100,
  );
const countProducts = async (target: Target, shopPk: number, like: string): Promise<number> =>
  (await target.query<{ n: number }>(`select count(*)::int n from products where shop_pk = $1 and sku like $2`, [shopPk, like]))[0]?.n ??
  -1;

interface FeedJson {
  state: string;
  counts: { total: number; succeeded: number; failed: number };
  result: { success: { index: number; sku: string }[]; errors: { index: number; sku?: string; code: string }[] };
}

/** Runs `body` against a fresh target and daemon; stops both whatever happens. */
async function withDaemon(
  env: Record<string, string>,
  body: (t: Target, d: DaemonProcess, shop: ShopKey, problems: string[], figures: Outcome['figures']) => Promise<void>,
): Promise<Outcome> {
  const target = await freshTarget();
  const daemon = await spawnDaemon({ ...target.env, ...env });
  const problems: string[] = [];
  const figures: Outcome['figures'] = {};
  try {
    const shop = await shopWithKey(target);
    await body(target, daemon, shop, problems, figures);
    if (!(await alive(daemon))) problems.push(`the daemon died:\n${daemon.output().slice(-3000)}`);
  } finally {
    daemon.child.kill('SIGTERM');
    await daemon.exited;
    await target.close();
  }
  return { pass: problems.length === 0, figures, detail: problems.join('\n') };
}

export const hugeRequest: Scenario = {
  name: 'huge-request',
  run: () =>
    withDaemon({}, async (target, daemon, shop, problems, figures) => {
      await runCli(['marketplaces', 'create', '--name', 'Huge MP', '--pk', '15', '--json'], target.env);
      const products = `/shops/${shop.shopPk}/products/`;
      const attacks: [string, string, string, number, string][] = [
        ['products-3M', products, ones(3_000_000), 413, 'too_many_items'],
        [
          'order-items-3M',
          `/shops/${shop.shopPk}/marketplace/15/orders/`,
          `{"order_pk":1,"items":${ones(3_000_000)}}`,
          400,
          'validation_failed',
        ],
        ['images-3M', products, `{"sku":"I","name":"i","price":1,"stock":1,"images":${ones(3_000_000)}}`, 400, 'validation_failed'],
        [
          'objects-21M',
          products,
          `[{"sku":"O","name":"o","price":1,"stock":1,"x":[${new Array(21_000_000).fill('{}').join(',')}]}]`,
          413,
          'too_many_values',
        ],
        [
          'members-3M',
          products,
          `{"sku":"M","name":"m","price":1,"stock":1,${Array.from({ length: 3_000_000 }, (_, i) => `"u${i}":1`).join(',')}}`,
          413,
          'too_many_members',
        ],
        [
          'errors-1M',
          products,
          `[${new Array(10_000).fill(`{"sku":"E","name":"e","price":1,"stock":1,"images":${ones(100)}}`).join(',')}]`,
          400,
          'validation_failed',
        ],
      ];
      let peak = rssMb(daemon);
      const sampler = setInterval(() => (peak = Math.max(peak, rssMb(daemon))), 25);
      const valid = Array.from({ length: 10_000 }, (_, i) => ({ sku: `OK-${i}`, name: `Valid ${i}`, price: 1 + (i % 50), stock: i % 9 }));
      try {
        let slowest = 0;
        for (const [name, url, body, status, code] of attacks) {
          const t = Date.now();
          const res = await fetch(`${daemon.url}${url}`, { method: 'POST', headers: shop.headers, body }).catch((e: Error) => e);
          const ms = Date.now() - t;
          slowest = Math.max(slowest, ms);
          if (res instanceof Error) {
            problems.push(`${name}: ${res.message}`);
            continue;
          }
          const text = await res.text();
          const json = JSON.parse(text) as { code?: string; errors?: unknown[]; errors_total?: number };
          figures[`${name}_ms`] = ms;
          if (res.status !== status || json.code !== code) problems.push(`${name}: ${res.status} ${text.slice(0, 200)}`);
          if (text.length > 200_000) problems.push(`${name}: a reply of ${text.length} bytes`);
          if (name === 'errors-1M' && (json.errors?.length !== 1_000 || json.errors_total !== 1_000_000))
            problems.push(`errors-1M: listed ${json.errors?.length}, total ${json.errors_total}`);
          if (!(await alive(daemon))) problems.push(`${name}: the daemon is down`);
          // A valid write between attacks is taken and stored whole.
          if (name === 'images-3M') {
            const ok = await fetch(`${daemon.url}${products}`, { method: 'POST', headers: shop.headers, body: JSON.stringify(valid) });
            if (ok.status !== 201) problems.push(`the valid 10,000-product write answered ${ok.status}`);
            else figures.valid_feed = (await feedDone(daemon, shop, ok.headers.get('location')!)).state;
          }
        }
        figures.slowest_reply_ms = slowest;
      } finally {
        clearInterval(sampler);
      }
      figures.rss_peak_mb = Math.round(peak);
      figures.valid_stored = await countProducts(target, shop.shopPk, 'OK-%');
      if (figures.valid_stored !== 10_000) problems.push(`valid products stored: ${figures.valid_stored} of 10000`);
      // The daemon's heap is capped at 1 GB; a body over it is what crashed it before.
      if (peak > 700) problems.push(`the daemon reached ${Math.round(peak)} MB`);
    }),
};

export const unstorableItem: Scenario = {
  name: 'unstorable-item',
  run: () =>
    withDaemon({}, async (target, daemon, shop, problems, figures) => {
      // A refusal validation cannot see: a constraint of this test's own database.
      await target.query(`alter table products add constraint fault_no_poison check (sku not like 'POISON%')`);
      const post = (body: unknown) =>
        fetch(`${daemon.url}/shops/${shop.shopPk}/products/`, { method: 'POST', headers: shop.headers, body: JSON.stringify(body) });
      const bad = new Set([7, 1_234, 2_499]);
      const big = Array.from({ length: 2_500 }, (_, i) => ({
        sku: bad.has(i) ? `POISON-BIG-${i}` : `BIG-${i}`,
        name: `Big ${i}`,
        price: 2,
        stock: 1,
        images: [`https://img.example.com/b/${i}.jpg`],
      }));
      const bigRes = await post(big);
      const smalls = await Promise.all(
        Array.from({ length: 60 }, (_, i) => post([{ sku: i % 12 === 3 ? `POISON-S-${i}` : `S-${i}`, name: 'Small', price: 1, stock: 1 }])),
      );
      if (bigRes.status !== 201 || smalls.some((r) => r.status !== 201)) throw new Error('a write was not accepted');
      const t = Date.now();
      const bigFeed = await feedDone(daemon, shop, bigRes.headers.get('location')!);
      const smallFeeds = await Promise.all(smalls.map((r) => feedDone(daemon, shop, r.headers.get('location')!)));
      figures.seconds_to_apply = ((Date.now() - t) / 1000).toFixed(1);
      const refusedBig = bigFeed.result.errors.map((e) => e.index).sort((a, b) => a - b);
      if (
        bigFeed.state !== 'done' ||
        bigFeed.counts.succeeded !== 2_497 ||
        refusedBig.join() !== [...bad].join() ||
        bigFeed.result.errors.some((e) => e.code !== 'not_storable')
      ) {
        problems.push(`chunked feed: ${bigFeed.state} succeeded=${bigFeed.counts.succeeded} refused=${refusedBig.join()}`);
      }
      const smallRefused = smallFeeds.filter((f) => f.counts.failed === 1 && f.result.errors[0]?.code === 'not_storable').length;
      const smallApplied = smallFeeds.filter((f) => f.counts.succeeded === 1).length;
      if (smallFeeds.some((f) => f.state !== 'done') || smallRefused !== 5 || smallApplied !== 55)
        problems.push(`small feeds: ${smallApplied} applied, ${smallRefused} refused`);
      figures.big_stored = await countProducts(target, shop.shopPk, 'BIG-%');
      figures.small_stored = await countProducts(target, shop.shopPk, 'S-%');
      figures.refused = refusedBig.length + smallRefused;
      if (figures.big_stored !== 2_497 || figures.small_stored !== 55)
        problems.push(`stored: ${figures.big_stored} of 2497, ${figures.small_stored} of 55`);
      // Values no column holds never reach a feed: a request mixing a good product and one with a stock past int4 is a 400 at once.
      const mixed = await post([
        { sku: 'MIX-GOOD', name: 'g', price: 1, stock: 1 },
        { sku: 'MIX-BAD', name: 'b', price: 1, stock: 2_147_483_648 },
      ]);
      if (mixed.status !== 400) problems.push(`a stock beyond int4 answered ${mixed.status}`);
    }),
};

export const fileDelta: Scenario = {
  name: 'file-delta',
  async run(): Promise<Outcome> {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'waybill-delta-'));
    const inbox = path.join(dir, 'inbox');
    await fs.mkdir(inbox);
    const configFile = path.join(dir, 'connectors.json');
    await fs.writeFile(
      configFile,
      JSON.stringify({
        connectors: [
          {
            name: 'erp',
            type: 'catalog-file',
            shop_pk: 1,
            schedule: '0 0 1 1 *',
            enabled: true,
            options: { inbox, format: 'csv', settle_ms: 0 },
          },
        ],
      }),
    );
    const env = { WAYBILL_CONNECTORS: configFile };
    try {
      return await withDaemon(env, async (target, daemon, shop, problems, figures) => {
        await target.query(`alter table products add constraint fault_no_poison check (sku not like 'POISON%')`);
        const rows = (order: number[]) =>
          `sku,name,price,stock\n${order.map((i) => `${i % 100 === 42 ? 'POISON' : 'F'}-${i},Product ${i},${i}.25,${i % 5}`).join('\n')}\n`;
        const all = Array.from({ length: 500 }, (_, i) => i);
        const drop = async (name: string, text: string) => {
          await fs.writeFile(path.join(inbox, name), text);
          const run = await runCli(['connectors', 'run', 'erp', '--json'], { ...target.env, ...env });
          if (run.code !== 0) throw new Error(`connectors run: ${run.stderr}`);
          const report = JSON.parse(await fs.readFile(path.join(inbox, '.done', `${name}.report.json`), 'utf8')) as {
            counts: { sent: number; unchanged: number };
            feeds: { url: string }[];
          };
          for (const f of report.feeds) await feedDone(daemon, shop, f.url);
          return report;
        };
        const first = await drop('export-1.csv', rows(all));
        figures.first_sent = first.counts.sent;
        figures.stored = await countProducts(target, shop.shopPk, 'F-%');
        // The same products again, another order: the 5 refused ones are sent again, the rest unchanged.
        const second = await drop('export-2.csv', rows([...all].reverse()));
        figures.second_sent = second.counts.sent;
        figures.second_unchanged = second.counts.unchanged;
        if (first.counts.sent !== 500 || figures.stored !== 495)
          problems.push(`first file: sent ${first.counts.sent}, stored ${figures.stored}`);
        if (second.counts.sent !== 5 || second.counts.unchanged !== 495)
          problems.push(`second file: sent ${second.counts.sent}, unchanged ${second.counts.unchanged}`);
      });
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  },
};
