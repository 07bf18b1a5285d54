// npm run bench -- connectors: a catalog CSV (products with 2 variation rows each) dropped into
// a catalog-file inbox, timed from the drop until every feed it created is done: rows/s, and the
// daemon's peak RSS (VmHWM of the daemon process) at 10k and 100k rows (target < 400 MB and flat).
// Baseline in the same run, same daemon: the same products through the API's bulk POST in
// requests of 1,000, until their feeds are done (target: connector >= 0.8 x API).
// Database: DATABASE_URL (a scratch database on that server, dropped after), else embedded.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { benchTarget } from './bench-target.ts';
import { loadConfig } from '../src/config.ts';
import { connect } from '../src/db/connect.ts';
import { createLogger } from '../src/logger.ts';
import { ShopService } from '../src/shops/shops.service.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// SIZES=1000,3000 (CSV rows, comma-separated, ascending) for a shorter run.
const SIZES = (process.env.SIZES ?? '10000,100000').split(',').map(Number);
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'waybill-bench-connectors-'));
// The embedded server runs as the "postgres" user, who must traverse this folder.
fs.chmodSync(work, 0o711);
const target = await benchTarget('connectors', { dataDir: path.join(work, 'data') });
const env: Record<string, string> = { LOG_LEVEL: 'warn', ...target.env };
const logger = createLogger({ level: 'warn', pretty: false });
const connection = await connect(loadConfig({ ...env, WAYBILL_CONNECTORS: path.join(work, 'none.json') }), logger);
const shops = new ShopService(connection.db);

/** Products of `rows` CSV rows: one product row then two variation rows, repeated. */
function* products(rows: number, prefix: string): Generator<Record<string, unknown>> {
  for (let i = 0; i * 3 < rows; i++) {
    const sku = `${prefix}-${i}`;
    const variations = [0, 1].filter((v) => i * 3 + 1 + v < rows).map((v) => ({ sku: `${sku}-${v === 0 ? 'S' : 'M'}`, size: v === 0 ? 'S' : 'M', stock: 5 + v, price: 10 + (i % 50) + v }));
    yield {
      sku, name: `Product ${i}`, price: 10 + (i % 50), stock: 10, brand: 'Bench', description: `Product ${i}, a fine thing; made to last.`,
      images: [`https://img.example/${sku}/a.jpg`, `https://img.example/${sku}/b.jpg`],
      ...(variations.length > 0 ? { variations } : {}),
    };
  }
}

const csvCell = (v: unknown): string => {
  const s = v === undefined ? '' : String(v);
  return /[",\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
};

function writeCsv(file: string, rows: number, prefix: string): void {
  const cols = ['sku', 'parent_sku', 'name', 'price', 'stock', 'brand', 'description', 'images', 'size'];
  const fd = fs.openSync(file, 'w');
  fs.writeSync(fd, `${cols.join(',')}\n`);
  let buf = '';
  for (const p of products(rows, prefix)) {
    buf += `${[p.sku, '', p.name, p.price, p.stock, p.brand, p.description, (p.images as string[]).join('|'), ''].map(csvCell).join(',')}\n`;
    for (const v of (p.variations ?? []) as Record<string, unknown>[]) buf += `${[v.sku, p.sku, '', v.price, v.stock, '', '', '', v.size].map(csvCell).join(',')}\n`;
    if (buf.length > 1 << 20) {
      fs.writeSync(fd, buf);
      buf = '';
    }
  }
  fs.writeSync(fd, buf);
  fs.closeSync(fd);
}

/** A port nobody listens on right now (other engineers' processes share this machine). */
const freePort = (): Promise<number> => new Promise((resolve, reject) => {
  const srv = net.createServer();
  srv.once('error', reject);
  srv.listen(0, '127.0.0.1', () => {
    const { port } = srv.address() as net.AddressInfo;
    srv.close(() => resolve(port));
  });
});

interface Daemon { child: ChildProcess; url: string; peakRssMb(): number; stop(): Promise<void> }

async function startDaemon(connectorsFile: string): Promise<Daemon> {
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(root, 'bin/waybill.js'), 'start'], {
    cwd: root,
    // BENCH_DAEMON_NODE_OPTIONS: V8 flags for the daemon only (e.g. --max-old-space-size=192).
    env: { ...process.env, ...env, PORT: String(port), WAYBILL_CONNECTORS: connectorsFile, NODE_OPTIONS: process.env.BENCH_DAEMON_NODE_OPTIONS ?? '' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (await fetch(`${url}/healthz`).then((r) => r.ok, () => false)) break;
    if (i > 600 || child.exitCode !== null) throw new Error('the daemon did not start');
    await sleep(100);
  }
  return {
    child,
    url,
    // VmHWM: the most resident memory the daemon process has had, kB.
    peakRssMb: () => Number(/VmHWM:\s+(\d+)/.exec(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024,
    async stop() {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function waitFeedsDone(url: string, key: string, pks: string[]): Promise<void> {
  for (const pk of pks) {
    for (;;) {
      const feed = (await (await fetch(`${url}/feeds/${pk}/`, { headers: { authorization: `Token ${key}` } })).json()) as { state: string };
      if (feed.state === 'done') break;
      if (feed.state === 'failed') throw new Error(`feed ${pk} failed`);
      await sleep(50);
    }
  }
}

/** Drop -> all feeds done through the connector; returns rows/s and the daemon's peak RSS. */
/** Fresh planner statistics before each timed phase (autovacuum would catch up on its own, later). */
const analyze = async (): Promise<void> => void (await connection.pool.query('analyze'));

async function viaConnector(rows: number): Promise<{ seconds: number; submitted: number; rowsPerSecond: number; peakRssMb: number; feeds: number; daemon: Daemon; shopPk: number; key: string }> {
  const shop = await shops.create({ name: `bench ${rows}` });
  const { key } = await shops.createKey(shop.pk);
  const inbox = path.join(work, `inbox-${rows}`);
  fs.mkdirSync(inbox);
  const file = path.join(work, `connectors-${rows}.json`);
  fs.writeFileSync(file, JSON.stringify({ connectors: [{ name: 'bench', type: 'catalog-file', shop_pk: shop.pk, schedule: '* * * * * *', options: { inbox, format: 'csv', settle_ms: 200 } }] }));
  const daemon = await startDaemon(file);
  const staged = path.join(work, `products-${rows}.csv`);
  writeCsv(staged, rows, `C${rows}`);
  await analyze();
  const started = performance.now();
  fs.renameSync(staged, path.join(inbox, 'products.csv'));
  const reportFile = path.join(inbox, '.done', 'products.csv.report.json');
  const read = (f: string): unknown => {
    try {
      return JSON.parse(fs.readFileSync(f, 'utf8'));
    } catch {
      return undefined; // not there yet, or being written
    }
  };
  let report: { feeds: { pk: string }[]; counts: { rows: number; sent: number } } | undefined;
  while ((report = read(reportFile) as typeof report) === undefined) {
    const refused = read(path.join(inbox, '.error', 'products.csv.report.json'));
    if (refused !== undefined) throw new Error(JSON.stringify(refused));
    await sleep(50);
  }
  const submitted = (performance.now() - started) / 1000;
  await waitFeedsDone(daemon.url, key, report.feeds.map((f) => f.pk));
  const seconds = (performance.now() - started) / 1000;
  if (report.counts.rows !== rows) throw new Error(`read ${report.counts.rows} rows of ${rows}`);
  return { seconds, submitted, rowsPerSecond: rows / seconds, peakRssMb: daemon.peakRssMb(), feeds: report.feeds.length, daemon, shopPk: shop.pk, key };
}

/** The same products through POST /shops/{shop}/products/ in requests of 1,000, until their feeds are done. */
async function viaApi(daemon: Daemon, rows: number): Promise<{ seconds: number; rowsPerSecond: number; postSeconds: number }> {
  const shop = await shops.create({ name: `bench api ${rows}` });
  const { key } = await shops.createKey(shop.pk);
  const all = [...products(rows, `A${rows}`)];
  const pks: string[] = [];
  await analyze();
  const started = performance.now();
  for (let i = 0; i < all.length; i += 1000) {
    const res = await fetch(`${daemon.url}/shops/${shop.pk}/products/`, {
      method: 'POST', headers: { authorization: `Token ${key}`, 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(all.slice(i, i + 1000)),
    });
    if (res.status !== 201) throw new Error(`POST answered ${res.status}: ${await res.text()}`);
    pks.push(((await res.json()) as { pk: string }).pk);
  }
  const posted = (performance.now() - started) / 1000;
  await waitFeedsDone(daemon.url, key, pks);
  const seconds = (performance.now() - started) / 1000;
  return { seconds, rowsPerSecond: rows / seconds, postSeconds: posted };
}

const fmt = (n: number, d = 0): string => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
const results: Record<string, unknown>[] = [];
try {
  for (const rows of SIZES) {
    const c = await viaConnector(rows);
    const connectorPeak = c.peakRssMb;
    const line: Record<string, unknown> = { rows, products: Math.ceil(rows / 3), connector_submitted_s: c.submitted, connector_s: c.seconds, connector_rows_per_s: c.rowsPerSecond, feeds: c.feeds, daemon_peak_rss_mb: connectorPeak };
    if (rows === SIZES.at(-1)) {
      const api = await viaApi(c.daemon, rows);
      Object.assign(line, { api_post_s: api.postSeconds, api_s: api.seconds, api_rows_per_s: api.rowsPerSecond, ratio: c.rowsPerSecond / api.rowsPerSecond, daemon_peak_rss_after_api_mb: c.daemon.peakRssMb() });
    }
    await c.daemon.stop();
    results.push(line);
    console.log(`${fmt(rows)} rows (${fmt(Math.ceil(rows / 3))} products + variations): connector ${fmt(c.seconds, 1)} s (file read and feeds submitted after ${fmt(c.submitted, 1)} s) = ${fmt(c.rowsPerSecond)} rows/s, ${c.feeds} feeds, daemon peak RSS ${fmt(connectorPeak)} MB`
      + (line.api_s === undefined ? '' : `; API bulk ${fmt(line.api_s as number, 1)} s (POSTs answered after ${fmt(line.api_post_s as number, 1)} s) = ${fmt(line.api_rows_per_s as number)} rows/s; ratio connector/API ${fmt(line.ratio as number, 2)} (target >= 0.8)`));
  }
  const [small, big] = results as { daemon_peak_rss_mb: number }[];
  const k = (n: number): string => (n % 1000 === 0 ? `${n / 1000}k` : String(n));
  console.log(`peak RSS ${k(SIZES[0]!)} -> ${k(SIZES.at(-1)!)} rows: ${fmt(small!.daemon_peak_rss_mb)} MB -> ${fmt(big!.daemon_peak_rss_mb)} MB (target < 400 MB, flat)`);
  console.log(JSON.stringify({ bench: 'connectors', results }));
} finally {
  await connection.close();
  await target.cleanup();
  fs.rmSync(work, { recursive: true, force: true });
}
