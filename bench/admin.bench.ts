// npm run bench -- admin: how fast the dashboard answers, and what the database log sink costs.
// 1. Requests/s and latency at 10 connections for the overview page, the feeds page's live
//    fragment, the overview JSON and /metrics, against GET /healthz in the same run (baseline),
//    over 1,000 feeds in the database. Target: p50 under 100 ms with 10 clients at once (one open
//    dashboard asks for at most 4 fragments a second, while a feed runs).
// 2. Log lines/s through the daemon's logger to a null destination, with and without the
//    database log sink as an extra stream (its write path: the request's cost). Target: < 2x.
// Database: DATABASE_URL (a scratch database on that server, dropped after), else an embedded
// Postgres in a temp folder.
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { performance } from 'node:perf_hooks';
import { benchTarget } from './bench-target.ts';
import { LogSink } from '../src/logs/log-sink.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { startDaemon } from '../src/main.ts';

interface Result {
  requests: { average: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
}
type Autocannon = (opts: Record<string, unknown>) => Promise<Result>;
const { default: autocannon } = (await import('autocannon' as string)) as { default: Autocannon };

const TOKEN = 'bench-admin-token-0123456789';
// FEEDS (a multiple of 50), SECONDS per HTTP measurement and LINES for the logger: shorter runs.
const FEEDS = Number(process.env.FEEDS ?? 1_000);
const SECONDS = Number(process.env.SECONDS ?? 5);
const target = await benchTarget('admin');
const env: Record<string, string> = {
  PORT: '0',
  LOG_LEVEL: 'warn',
  WAYBILL_ADMIN_TOKEN: TOKEN,
  WAYBILL_CONNECTORS: path.join(os.tmpdir(), `none-${target.tag}.json`),
  ...target.env,
};

const config = loadConfig(env);
const logs = new LogSink();
const logger = createLogger({ level: 'warn', pretty: false, streams: [{ level: 'trace', stream: logs }] });
// The API alone: the feeds stay queued, so the pages show 1,000 waiting feeds and a full queue.
const daemon = await startDaemon({ config, logger, role: 'api', logs });
try {
  const shop = await daemon.services.shops.create({ name: 'Bench shop' });
  for (let i = 0; i < FEEDS; i += 50) {
    await Promise.all(
      Array.from({ length: 50 }, (_, j) =>
        daemon.services.feedSubmit.submit({
          shopPk: shop.pk,
          type: 'product_create',
          source: 'connector:bench',
          items: [{ sku: `B-${i + j}`, name: 'Bench', price: 1, stock: 1 }],
        }),
      ),
    );
  }

  const headers = { authorization: `Bearer ${TOKEN}`, accept: 'text/html' };
  const run = async (p: string, h: Record<string, string> = headers) => {
    const r = await autocannon({ url: `${daemon.url}${p}`, connections: 10, duration: SECONDS, headers: h });
    if (r.non2xx > 0 || r.errors > 0) throw new Error(`${p}: ${r.non2xx} non-2xx, ${r.errors} errors`);
    return r;
  };
  const base = await run('/healthz', { accept: 'application/json' });
  console.log(
    `HTTP at 10 connections, ${FEEDS} feeds queued (baseline GET /healthz: ${base.requests.average.toFixed(0)} req/s, p50 ${base.latency.p50} ms, p99 ${base.latency.p99} ms)`,
  );
  for (const p of ['/admin/', '/admin/feeds?fragment=1', '/admin/jobs?queue=feed.process&fragment=1', '/admin/api/overview', '/metrics']) {
    const r = await run(p, p.startsWith('/admin/api') ? { ...headers, accept: 'application/json' } : headers);
    console.log(
      `  ${p.padEnd(44)} ${r.requests.average.toFixed(0).padStart(6)} req/s  p50 ${String(r.latency.p50).padStart(3)} ms  p99 ${String(r.latency.p99).padStart(3)} ms  (${(r.requests.average / base.requests.average).toFixed(2)} x baseline)`,
    );
  }
} finally {
  await daemon.stop();
  await target.cleanup();
}

// Logger throughput: the daemon's logger (JSON, redaction) into a sink that drops the bytes.
const LINES = Number(process.env.LINES ?? 200_000);
const sink = () =>
  new Writable({
    write(_c, _e, cb) {
      cb();
    },
  });
const measure = (withBuffer: boolean): number => {
  const streams = [
    { level: 'trace' as const, stream: sink() },
    ...(withBuffer ? [{ level: 'trace' as const, stream: new LogSink() }] : []),
  ];
  const log = createLogger({ level: 'info', pretty: false, console: false, streams }).child({ component: 'bench', jobId: 'x' });
  const t0 = performance.now();
  for (let i = 0; i < LINES; i++) log.info({ feedPk: 'f3c1d2e4-0000-4000-8000-000000000000', i }, 'feed chunk applied');
  return LINES / ((performance.now() - t0) / 1000);
};
measure(false); // warm-up of both paths
measure(true);
// Interleaved, median of five of each: other processes share the machine and its load drifts.
const plainRuns: number[] = [];
const bufferedRuns: number[] = [];
for (let i = 0; i < 5; i++) {
  plainRuns.push(measure(false));
  bufferedRuns.push(measure(true));
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const plain = median(plainRuns);
const buffered = median(bufferedRuns);
console.log(
  `Logger: ${plain.toFixed(0)} lines/s without the database log sink, ${buffered.toFixed(0)} lines/s with its write path (queueing) (cost ${(plain / buffered).toFixed(2)} x; target < 2 x)`,
);
