// npm run bench -- tracking: 10,000 shipped orders polled by tracking-dhl against a local mock
// of DHL's Unified API (20 ms latency per answer, the documented delivered body) at concurrency
// 20 with a rate limit of 400 requests/s: shipments/s, total time, and the most requests
// started in any one-second window (must never exceed the limit). Then 1,000 more with a limit
// of 50/s, where the limit is what binds (about 20 s expected). Baseline, same run: a bare
// fetch loop at concurrency 20 against the same mock (no limit, no database): the ceiling the
// carrier's latency allows. Database: DATABASE_URL (a scratch database on that server, dropped
// after), else an embedded Postgres in a temp folder.
import { fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { benchTarget } from './bench-target.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { startDaemon } from '../src/main.ts';

const SHIPMENTS = Number(process.env.BENCH_TRACKING_SHIPMENTS ?? 10_000);
const CONCURRENCY = 20;
const RATE_LIMIT = 400;
const TIGHT_SHIPMENTS = Number(process.env.BENCH_TRACKING_TIGHT ?? 1_000);
const TIGHT_LIMIT = 50;
const LATENCY_MS = 20;
const BASELINE_REQUESTS = 4_000;

// --- the mock carrier, in its own process (its clock and event loop are the carrier's): DHL's
// documented answer after 20 ms; it reports every request's arrival time when asked ---
const mock = fork(fileURLToPath(new URL('./tracking-mock-carrier.ts', import.meta.url)), [String(LATENCY_MS)], { stdio: 'inherit' });
const ask = <T>(message: string): Promise<T> =>
  new Promise((resolve) => {
    mock.once('message', (m) => resolve(m as T));
    mock.send(message);
  });
const { port } = await new Promise<{ port: number }>((resolve) => mock.once('message', (m) => resolve(m as { port: number })));
const base = `http://127.0.0.1:${port}`;

/** The most request starts inside any window of 1,000 ms (half-open). */
function maxPerSecond(times: number[]): number {
  const t = [...times].sort((a, b) => a - b);
  let best = 0;
  for (let i = 0, j = 0; j < t.length; j++) {
    while (t[j]! - t[i]! >= 1000) i++;
    best = Math.max(best, j - i + 1);
  }
  return best;
}

// --- baseline: bare fetches at the same concurrency ---
async function baseline(): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < BASELINE_REQUESTS) {
        const n = next++;
        const res = await fetch(`${base}/track/shipments?trackingNumber=B${n}`, { headers: { 'DHL-API-Key': 'bench' } });
        await res.json();
      }
    }),
  );
  return BASELINE_REQUESTS / ((performance.now() - t0) / 1000);
}

// --- the daemon, its database and 10,000 shipped orders ---
const target = await benchTarget('tracking');
const connectorsFile = path.join(os.tmpdir(), `wb-bench-tracking-${target.tag}.json`);
process.env.WB_BENCH_DHL_KEY = 'bench';
const entry = (name: string, carrier: string, limit: number) => ({
  name,
  type: 'tracking-dhl',
  options: {
    base_url: base,
    carriers: [carrier],
    api_key_env: 'WB_BENCH_DHL_KEY',
    concurrency: CONCURRENCY,
    requests_per_second: limit,
    batch_size: 500,
    max_run_seconds: 900,
    min_interval_seconds: 0,
  },
});
fs.writeFileSync(
  connectorsFile,
  JSON.stringify({ connectors: [entry('dhl-bench', 'DHL', RATE_LIMIT), entry('dhl-tight', 'DHL-TIGHT', TIGHT_LIMIT)] }),
);
const env: Record<string, string> = { PORT: '0', LOG_LEVEL: 'warn', WAYBILL_CONNECTORS: connectorsFile, ...target.env };

const daemon = await startDaemon({ config: loadConfig(env), logger: createLogger({ level: 'warn', pretty: false }), role: 'api' });
const { services } = daemon;
try {
  const shop = await services.shops.create({ name: 'Bench shop' });
  const mp = (await services.marketplaces.create({ name: 'Bench marketplace', pk: 15 })).pk;
  const ship = async (first: number, count: number, carrier: string): Promise<void> => {
    for (let start = 0; start < count; start += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, count - start) }, async (_, i) => {
          const orderPk = first + start + i;
          await services.orders.intake(
            shop.pk,
            mp,
            { order_pk: orderPk, items: [{ item_pk: 1, sku: 'A1', quantity: 1, price: 10.5 }] },
            'connector:bench',
          );
          await services.orders.applyAction({
            shopPk: shop.pk,
            marketplacePk: mp,
            orderPk,
            action: 'ship',
            shipping: { carrier, tracking_code: `JJD${orderPk}` },
            source: 'connector:bench',
          });
        }),
      );
    }
  };
  const poll = async (name: string, expected: number, limit: number): Promise<boolean> => {
    await ask('reset');
    const t0 = performance.now();
    const result = await services.connectors.execute({ name, trigger: 'manual' });
    const seconds = (performance.now() - t0) / 1000;
    if (result.status !== 'done' || result.error !== undefined) throw new Error(`run failed: ${JSON.stringify(result)}`);
    const counts = result.run.counts;
    const rate = (counts.checked ?? 0) / seconds;
    const starts = (await ask<{ arrivals: number[] }>('report')).arrivals;
    const peak = maxPerSecond(starts);
    console.log(
      `${name}: ${counts.checked} shipments checked, ${counts.action_delivered ?? 0} orders delivered, ${counts.events_new ?? 0} events stored in ${seconds.toFixed(1)} s`,
    );
    console.log(`  ${rate.toFixed(0)} shipments/s at concurrency ${CONCURRENCY}; ${(rate / bare).toFixed(2)} x the bare-fetch baseline`);
    console.log(
      `  rate limit ${limit} req/s: at most ${peak} requests started in any 1 s window (${starts.length} requests) -> ${peak <= limit ? 'never exceeded' : 'EXCEEDED'}`,
    );
    return counts.checked === expected && peak <= limit;
  };

  const setup0 = performance.now();
  await ship(1_000_000, SHIPMENTS, 'DHL');
  await ship(2_000_000, TIGHT_SHIPMENTS, 'DHL-TIGHT');
  console.log(`setup: ${SHIPMENTS + TIGHT_SHIPMENTS} orders intaken and shipped in ${((performance.now() - setup0) / 1000).toFixed(1)} s`);

  const bare = await baseline();
  console.log(`baseline: bare fetch at concurrency ${CONCURRENCY} against the ${LATENCY_MS} ms mock: ${bare.toFixed(0)} req/s`);

  const ok = await poll('dhl-bench', SHIPMENTS, RATE_LIMIT);
  const again0 = performance.now();
  const again = await services.connectors.execute({ name: 'dhl-bench', trigger: 'manual' });
  console.log(
    `  a second run (every shipment final): ${JSON.stringify(again.status === 'done' ? again.run.counts : again)} in ${(performance.now() - again0).toFixed(0)} ms`,
  );
  const tight = await poll('dhl-tight', TIGHT_SHIPMENTS, TIGHT_LIMIT);
  if (!ok || !tight) process.exitCode = 1;
} finally {
  await daemon.stop();
  await target.cleanup();
  fs.rmSync(connectorsFile, { force: true });
  mock.send('stop');
}
