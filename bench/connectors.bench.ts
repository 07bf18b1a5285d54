// npm run bench -- connectors: a catalog CSV (products with 2 variation rows each) dropped into
// a catalog-file inbox, timed from the drop until every feed it created is done: rows/s, and the
// daemon's peak RSS (VmHWM of the daemon process) at 10k and 100k rows (target < 400 MB and flat).
// Baseline in the same run: the same products through the API's bulk POST in requests of 1,000,
// until their feeds are done (target: connector >= 0.7 x API). Each phase gets a daemon of its
// own (cold, like the other), their order alternates by round, and the figures are medians.
// Database: DATABASE_URL (a scratch database on that server, dropped after), else embedded.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { benchTarget } from './bench-target.ts';
import { mockProduct, startMockWoo } from './pull-mock.ts';
import { listeningPort } from '../test/helpers/cli.ts';
import { loadConfig } from '../src/config.ts';
import { connect } from '../src/db/connect.ts';
import { createLogger } from '../src/logger.ts';
import { csvLine } from '../src/admin/csv-writer.ts';
import { DestinationPolicy } from '../src/outbound/destination-policy.ts';
import { SecretBox } from '../src/shops/secret-box.ts';
import { ShopService } from '../src/shops/shops.service.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// SIZES=1000,3000 (CSV rows, comma-separated, ascending) and ROUNDS=1 for a shorter run.
const SIZES = (process.env.SIZES ?? '10000,100000').split(',').map(Number);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'waybill-bench-connectors-'));
// The embedded server runs as the "postgres" user, who must traverse this folder.
fs.chmodSync(work, 0o711);
const target = await benchTarget('connectors', { dataDir: path.join(work, 'data') });
const env: Record<string, string> = { LOG_LEVEL: 'warn', ...target.env };
const logger = createLogger({ level: 'warn', pretty: false });
const config = loadConfig({ ...env, WAYBILL_CONNECTORS: path.join(work, 'none.json') });
const connection = await connect(config, logger);
const shops = new ShopService(connection.db, new DestinationPolicy(), SecretBox.fromConfig(config));

/** Products of `rows` CSV rows: one product row then two variation rows, repeated. */
function* products(rows: number, prefix: string): Generator<Record<string, unknown>> {
  for (let i = 0; i * 3 < rows; i++) {
    const sku = `${prefix}-${i}`;
    const variations = [0, 1]
      .filter((v) => i * 3 + 1 + v < rows)
      .map((v) => ({ sku: `${sku}-${v === 0 ? 'S' : 'M'}`, size: v === 0 ? 'S' : 'M', stock: 5 + v, price: 10 + (i % 50) + v }));
    yield {
      sku,
      name: `Product ${i}`,
      price: 10 + (i % 50),
      stock: 10,
      brand: 'Bench',
      description: `Product ${i}, a fine thing; made to last.`,
      images: [`https://img.example/${sku}/a.jpg`, `https://img.example/${sku}/b.jpg`],
      ...(variations.length > 0 ? { variations } : {}),
    };
  }
}

function writeCsv(file: string, rows: number, prefix: string): void {
  const cols = ['sku', 'parent_sku', 'name', 'price', 'stock', 'brand', 'description', 'images', 'size'];
  const fd = fs.openSync(file, 'w');
  fs.writeSync(fd, `${cols.join(',')}\n`);
  let buf = '';
  for (const p of products(rows, prefix)) {
    buf += `${csvLine([p.sku, '', p.name, p.price, p.stock, p.brand, p.description, (p.images as string[]).join('|'), ''])}\n`;
    for (const v of (p.variations ?? []) as Record<string, unknown>[])
      buf += `${csvLine([v.sku, p.sku, '', v.price, v.stock, '', '', '', v.size])}\n`;
    if (buf.length > 1 << 20) {
      fs.writeSync(fd, buf);
      buf = '';
    }
  }
  fs.writeSync(fd, buf);
  fs.closeSync(fd);
}

/**
 * The same products as a shop system exports them (PRESETS, default woocommerce,magento2), the
 * variation rows of each 1,000 products written before their parents' rows: the preset engine
 * has to group them wherever they are.
 */
const PRESETS = (process.env.PRESETS ?? 'woocommerce,magento2').split(',').filter((p) => p !== '');
function writePresetCsv(file: string, rows: number, prefix: string, preset: string): void {
  const woo = preset === 'woocommerce';
  const fd = fs.openSync(file, 'w');
  fs.writeSync(
    fd,
    woo
      ? 'ID,Type,SKU,Name,Description,Regular price,Stock,Images,Parent,Attribute 1 name,Attribute 1 value(s),Brands\n'
      : 'sku,store_view_code,product_type,name,description,price,qty,base_image,additional_images,additional_attributes,configurable_variations\n',
  );
  let children = '';
  let parents = '';
  let n = 0;
  const flush = (): void => {
    fs.writeSync(fd, children + parents);
    children = '';
    parents = '';
  };
  for (const p of products(rows, prefix)) {
    const id = ++n * 10;
    const vs = (p.variations ?? []) as Record<string, unknown>[];
    const images = p.images as string[];
    vs.forEach((v, j) => {
      children += woo
        ? `${csvLine([id + j + 1, 'variation', v.sku, '', '', v.price, v.stock, '', `id:${id}`, 'Size', v.size, ''])}\n`
        : `${csvLine([v.sku, '', 'simple', `${String(p.name)} ${String(v.size)}`, '', `${String(v.price)}.0000`, `${String(v.stock)}.0000`, '', '', `size=${String(v.size)}`, ''])}\n`;
    });
    parents += woo
      ? `${csvLine([id, vs.length > 0 ? 'variable' : 'simple', p.sku, p.name, p.description, p.price, p.stock, images.join(', '), '', '', '', p.brand])}\n`
      : `${csvLine([
          p.sku,
          '',
          vs.length > 0 ? 'configurable' : 'simple',
          p.name,
          p.description,
          `${String(p.price)}.0000`,
          `${String(p.stock)}.0000`,
          images[0],
          images.slice(1).join(','),
          `manufacturer=${String(p.brand)}`,
          vs.map((v) => `sku=${String(v.sku)},size=${String(v.size)}`).join('|'),
        ])}\n`;
    if (n % 1000 === 0) flush();
  }
  flush();
  fs.closeSync(fd);
}

interface Daemon {
  child: ChildProcess;
  url: string;
  peakRssMb(): number;
  stop(): Promise<void>;
}

async function startDaemon(connectorsFile: string): Promise<Daemon> {
  const child = spawn(process.execPath, [path.join(root, 'bin/waybill.js'), 'start'], {
    cwd: root,
    // BENCH_DAEMON_NODE_OPTIONS: V8 flags for the daemon only (e.g. --max-old-space-size=192).
    env: {
      ...process.env,
      ...env,
      PORT: '0',
      WAYBILL_CONNECTORS: connectorsFile,
      NODE_OPTIONS: process.env.BENCH_DAEMON_NODE_OPTIONS ?? '',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  // The port the OS gave it (PORT=0), read from its listening socket.
  let url = '';
  for (let i = 0; ; i++) {
    if (url === '') {
      const port = await listeningPort(child.pid!);
      if (port !== null) url = `http://127.0.0.1:${port}`;
    }
    if (
      url !== '' &&
      (await fetch(`${url}/healthz`).then(
        (r) => r.ok,
        () => false,
      ))
    )
      break;
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

interface FeedSummary {
  pk: string;
  state: string;
  counts: { total: number; succeeded: number; failed: number };
}

/**
 * Waits until every feed in `pks` is done, reading the shop's feed list (summaries, without
 * per-item results: polling each feed's full results would load the daemon with work of the
 * benchmark's own). Returns the products the feeds applied; throws on a failed feed.
 */
async function waitFeedsDone(url: string, shopPk: number, key: string, pks: string[]): Promise<number> {
  const wanted = new Set(pks);
  for (;;) {
    const seen: FeedSummary[] = [];
    for (let page = 1; ; page++) {
      const res = await fetch(`${url}/shops/${shopPk}/feeds/?page_size=1000&page=${page}`, { headers: { authorization: `Token ${key}` } });
      // A bare array; the Link header names the next page while there is one.
      const body = (await res.json()) as FeedSummary[];
      seen.push(...body.filter((f) => wanted.has(f.pk)));
      if (!/rel="next"/.test(res.headers.get('link') ?? '')) break;
    }
    const failed = seen.find((f) => f.state === 'failed');
    if (failed !== undefined) throw new Error(`feed ${failed.pk} failed`);
    if (seen.length === wanted.size && seen.every((f) => f.state === 'done')) {
      const bad = seen.reduce((n, f) => n + f.counts.failed, 0);
      if (bad > 0) throw new Error(`${bad} products failed`);
      return seen.reduce((n, f) => n + f.counts.succeeded, 0);
    }
    await sleep(50);
  }
}

/**
 * Fresh planner statistics before each timed phase (autovacuum would catch up on its own,
 * later). Without the daemon's statement time limit: on a loaded machine it can take longer.
 */
const analyze = async (): Promise<void> => {
  // (query_timeout per query: node-postgres reads it, its typing does not list it.)
  const query = { text: 'begin; set local statement_timeout = 0; analyze; commit', query_timeout: 600_000 };
  await connection.pool.query(query);
};

/** CPU seconds (user + system, every thread) the process has used. */
const cpuSeconds = (pid: number): number => {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
};

interface Phase {
  /** Drop (or first POST) -> every feed done. */
  seconds: number;
  /** Until the file's report was written (every feed submitted) / the last POST answered. */
  submitted: number;
  rowsPerSecond: number;
  peakRssMb: number;
  /** CPU seconds of the daemon process during the phase (not Postgres's). */
  cpu: number;
  feeds: number;
}

/** Drop -> all feeds done through the connector (with `preset`: a file of that system's format), in a daemon of its own. */
async function viaConnector(rows: number, tag: string, preset?: string): Promise<Phase> {
  const shop = await shops.create({ name: `bench connector ${tag}` });
  const { key } = await shops.createKey(shop.pk);
  const inbox = path.join(work, `inbox-${tag}`);
  fs.mkdirSync(inbox);
  const file = path.join(work, `connectors-${tag}.json`);
  fs.writeFileSync(
    file,
    JSON.stringify({
      connectors: [
        {
          name: 'bench',
          type: 'catalog-file',
          shop_pk: shop.pk,
          schedule: '* * * * * *',
          options: { inbox, settle_ms: 200, ...(preset === undefined ? { format: 'csv' } : { preset }) },
        },
      ],
    }),
  );
  const daemon = await startDaemon(file);
  try {
    const staged = path.join(work, `products-${tag}.csv`);
    if (preset === undefined) writeCsv(staged, rows, `C${tag}`);
    else writePresetCsv(staged, rows, `P${tag}`, preset);
    await analyze();
    const cpu0 = cpuSeconds(daemon.child.pid!);
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
      await sleep(20);
    }
    const submitted = (performance.now() - started) / 1000;
    const applied = await waitFeedsDone(
      daemon.url,
      shop.pk,
      key,
      report.feeds.map((f) => f.pk),
    );
    const seconds = (performance.now() - started) / 1000;
    const cpu = cpuSeconds(daemon.child.pid!) - cpu0;
    if (report.counts.rows !== rows) throw new Error(`read ${report.counts.rows} rows of ${rows}`);
    if (applied !== Math.ceil(rows / 3)) throw new Error(`applied ${applied} products of ${Math.ceil(rows / 3)}`);
    return { seconds, submitted, rowsPerSecond: rows / seconds, peakRssMb: daemon.peakRssMb(), cpu, feeds: report.feeds.length };
  } finally {
    await daemon.stop();
  }
}

/** The same products through POST /shops/{shop}/products/ in requests of 1,000 until their feeds are done, in a daemon of its own. */
async function viaApi(rows: number, tag: string, list?: Record<string, unknown>[]): Promise<Phase> {
  const file = path.join(work, `connectors-api-${tag}.json`);
  fs.writeFileSync(file, JSON.stringify({ connectors: [] }));
  const daemon = await startDaemon(file);
  try {
    const shop = await shops.create({ name: `bench api ${tag}` });
    const { key } = await shops.createKey(shop.pk);
    const all = list ?? [...products(rows, `A${tag}`)];
    const pks: string[] = [];
    await analyze();
    const cpu0 = cpuSeconds(daemon.child.pid!);
    const started = performance.now();
    for (let i = 0; i < all.length; i += 1000) {
      const res = await fetch(`${daemon.url}/shops/${shop.pk}/products/`, {
        method: 'POST',
        headers: { authorization: `Token ${key}`, 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(all.slice(i, i + 1000)),
      });
      if (res.status !== 201) throw new Error(`POST answered ${res.status}: ${await res.text()}`);
      pks.push(((await res.json()) as { pk: string }).pk);
    }
    const submitted = (performance.now() - started) / 1000;
    const applied = await waitFeedsDone(daemon.url, shop.pk, key, pks);
    const seconds = (performance.now() - started) / 1000;
    const cpu = cpuSeconds(daemon.child.pid!) - cpu0;
    if (applied !== all.length) throw new Error(`applied ${applied} products of ${all.length}`);
    return { seconds, submitted, rowsPerSecond: rows / seconds, peakRssMb: daemon.peakRssMb(), cpu, feeds: pks.length };
  } finally {
    await daemon.stop();
  }
}

const fmt = (n: number, d = 0): string => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
/** "median (min-max)" of a figure over the rounds. */
const spread = (xs: number[], d = 0): string =>
  xs.length === 1 ? fmt(xs[0]!, d) : `${fmt(median(xs), d)} (${fmt(Math.min(...xs), d)}-${fmt(Math.max(...xs), d)})`;
const k = (n: number): string => (n % 1000 === 0 ? `${n / 1000}k` : String(n));

// The pull case: PULL_PRODUCTS (default 10,000; 0 skips it) simple products read by
// catalog-woocommerce from a local mock of its API (100 a page, PULL_LATENCY_MS per request,
// default 50), timed from `waybill connectors run` until every feed is done; against the same
// products through the bulk POST.
const PULL_PRODUCTS = Number(process.env.PULL_PRODUCTS ?? 10_000);
const PULL_LATENCY_MS = Number(process.env.PULL_LATENCY_MS ?? 50);

/** Every feed of the shop done, `expected` products applied: the feeds' pks. */
async function waitShopFeeds(url: string, shopPk: number, key: string, expected: number): Promise<number> {
  for (;;) {
    const res = await fetch(`${url}/shops/${shopPk}/feeds/?page_size=1000`, { headers: { authorization: `Token ${key}` } });
    const feeds = (await res.json()) as FeedSummary[];
    if (feeds.some((f) => f.state === 'failed')) throw new Error('a feed failed');
    const applied = feeds.reduce((n, f) => n + f.counts.succeeded, 0);
    if (feeds.length > 0 && feeds.every((f) => f.state === 'done') && applied >= expected) return feeds.length;
    await sleep(50);
  }
}

async function viaPull(count: number, tag: string): Promise<Phase & { requests: number }> {
  const shop = await shops.create({ name: `bench pull ${tag}` });
  const { key } = await shops.createKey(shop.pk);
  const api = await startMockWoo(count, `P${tag}`, PULL_LATENCY_MS);
  // The mock's keys, for the daemon (it checks a connector's secrets at start) and the CLI.
  Object.assign(process.env, { BENCH_WOO_KEY: 'ck_bench', BENCH_WOO_SECRET: 'cs_bench' });
  const file = path.join(work, `connectors-pull-${tag}.json`);
  fs.writeFileSync(
    file,
    JSON.stringify({
      connectors: [
        {
          name: 'bench-pull',
          type: 'catalog-woocommerce',
          shop_pk: shop.pk,
          schedule: '0 0 1 1 *',
          options: {
            base_url: api.url,
            consumer_key_env: 'BENCH_WOO_KEY',
            consumer_secret_env: 'BENCH_WOO_SECRET',
            requests_per_second: 1000,
          },
        },
      ],
    }),
  );
  const daemon = await startDaemon(file);
  try {
    await analyze();
    const cpu0 = cpuSeconds(daemon.child.pid!);
    const started = performance.now();
    // One run now, as an operator would: the CLI runs it; the daemon's worker applies the feeds.
    const cli = spawn(process.execPath, [path.join(root, 'bin/waybill.js'), 'connectors', 'run', 'bench-pull', '--json'], {
      cwd: root,
      env: { ...process.env, ...env, WAYBILL_CONNECTORS: file },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    cli.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    const code = await new Promise<number | null>((r) => cli.once('exit', r));
    if (code !== 0) throw new Error(`connectors run exited ${code}: ${out}`);
    const submitted = (performance.now() - started) / 1000;
    const feeds = await waitShopFeeds(daemon.url, shop.pk, key, count);
    const seconds = (performance.now() - started) / 1000;
    return {
      seconds,
      submitted,
      rowsPerSecond: count / seconds,
      peakRssMb: daemon.peakRssMb(),
      cpu: cpuSeconds(daemon.child.pid!) - cpu0,
      feeds,
      requests: api.requests(),
    };
  } finally {
    await daemon.stop();
    await api.close();
  }
}

interface Round {
  round: number;
  rows: number;
  connector: Phase;
  api: Phase;
  ratio: number;
  presets: Record<string, Phase & { ratio: number }>;
}
const rounds: Round[] = [];
console.log(
  `connectors: sizes ${SIZES.map(k).join(', ')} rows, ${ROUNDS} rounds, a fresh daemon per phase (connector and API alternate which goes first), database ${target.env.DATABASE_URL === undefined ? 'embedded' : 'DATABASE_URL'}, ${os.cpus().length} CPUs, load average ${os.loadavg()[0]!.toFixed(1)}`,
);
try {
  for (let round = 1; round <= ROUNDS; round++) {
    for (const rows of SIZES) {
      const tag = `${round}x${rows}`;
      // Alternate the order: the second phase meets fuller tables (and a warmer disk cache).
      let connector: Phase;
      let api: Phase;
      if (round % 2 === 1) {
        connector = await viaConnector(rows, tag);
        api = await viaApi(rows, tag);
      } else {
        api = await viaApi(rows, tag);
        connector = await viaConnector(rows, tag);
      }
      const presets: Round['presets'] = {};
      for (const preset of PRESETS) {
        const phase = await viaConnector(rows, `${tag}-${preset}`, preset);
        presets[preset] = { ...phase, ratio: phase.rowsPerSecond / api.rowsPerSecond };
        console.log(
          `round ${round}, ${fmt(rows)} rows, preset ${preset} (variations before their parents): ${fmt(phase.seconds, 2)} s = ${fmt(phase.rowsPerSecond)} rows/s, daemon CPU ${fmt(phase.cpu, 1)} s, peak RSS ${fmt(phase.peakRssMb)} MB; ratio to the API ${fmt(presets[preset].ratio, 2)}`,
        );
      }
      const r: Round = { round, rows, connector, api, ratio: connector.rowsPerSecond / api.rowsPerSecond, presets };
      rounds.push(r);
      console.log(
        `round ${round}, ${fmt(rows)} rows (${fmt(Math.ceil(rows / 3))} products + variations, ${connector.feeds} feeds): ` +
          `connector ${fmt(connector.seconds, 2)} s (all feeds submitted at ${fmt(connector.submitted, 2)} s) = ${fmt(connector.rowsPerSecond)} rows/s, daemon CPU ${fmt(connector.cpu, 1)} s, peak RSS ${fmt(connector.peakRssMb)} MB; ` +
          `API ${fmt(api.seconds, 2)} s (POSTs answered at ${fmt(api.submitted, 2)} s) = ${fmt(api.rowsPerSecond)} rows/s, daemon CPU ${fmt(api.cpu, 1)} s, peak RSS ${fmt(api.peakRssMb)} MB; ratio ${fmt(r.ratio, 2)}`,
      );
    }
  }
  console.log(`\nmedian (range) over ${ROUNDS} round${ROUNDS === 1 ? '' : 's'}:`);
  for (const rows of SIZES) {
    const of = rounds.filter((r) => r.rows === rows);
    console.log(
      `${k(rows)} rows: connector ${spread(of.map((r) => r.connector.rowsPerSecond))} rows/s (${spread(
        of.map((r) => r.connector.seconds),
        2,
      )} s), peak RSS ${spread(of.map((r) => r.connector.peakRssMb))} MB; ` +
        `API ${spread(of.map((r) => r.api.rowsPerSecond))} rows/s (${spread(
          of.map((r) => r.api.seconds),
          2,
        )} s), peak RSS ${spread(of.map((r) => r.api.peakRssMb))} MB; ratio connector/API ${spread(
          of.map((r) => r.ratio),
          2,
        )}`,
    );
  }
  const peak = (rows: number, phase: 'connector' | 'api'): number =>
    median(rounds.filter((r) => r.rows === rows).map((r) => r[phase].peakRssMb));
  const [first, last] = [SIZES[0]!, SIZES.at(-1)!];
  console.log(
    `connector peak RSS ${k(first)} -> ${k(last)} rows: ${fmt(peak(first, 'connector'))} -> ${fmt(peak(last, 'connector'))} MB (${fmt((peak(last, 'connector') / peak(first, 'connector') - 1) * 100)}%; target < 400 MB, flat); ` +
      `API ${fmt(peak(first, 'api'))} -> ${fmt(peak(last, 'api'))} MB; ratio at ${k(last)}: ${fmt(median(rounds.filter((r) => r.rows === last).map((r) => r.ratio)), 2)} (target >= 0.7)`,
  );
  for (const preset of PRESETS) {
    for (const rows of SIZES) {
      const of = rounds.filter((r) => r.rows === rows).map((r) => r.presets[preset]!);
      console.log(
        `preset ${preset}, ${k(rows)} rows: ${spread(of.map((p) => p.rowsPerSecond))} rows/s, peak RSS ${spread(of.map((p) => p.peakRssMb))} MB (target < 400 MB); ratio to the API ${spread(
          of.map((p) => p.ratio),
          2,
        )} (target >= 0.7)`,
      );
    }
  }
  const pulls: { pull: Phase & { requests: number }; api: Phase }[] = [];
  if (PULL_PRODUCTS > 0) {
    for (let round = 1; round <= ROUNDS; round++) {
      const tag = `pull${round}`;
      const pull = await viaPull(PULL_PRODUCTS, tag);
      const api = await viaApi(
        PULL_PRODUCTS,
        `${tag}api`,
        Array.from({ length: PULL_PRODUCTS }, (_, i) => ({
          sku: `A${tag}-${i}`,
          name: `Product ${i}`,
          price: 10 + (i % 50),
          stock: 10,
          availability: 'in_stock',
          description: mockProduct(i, '').description as string,
          images: [`https://img.example/A${tag}-${i}/a.jpg`, `https://img.example/A${tag}-${i}/b.jpg`],
        })),
      );
      pulls.push({ pull, api });
      console.log(
        `pull round ${round}, ${fmt(PULL_PRODUCTS)} products from a mock WooCommerce API (100 a page, ${PULL_LATENCY_MS} ms a request): ` +
          `${fmt(pull.seconds, 2)} s (run ended at ${fmt(pull.submitted, 2)} s) = ${fmt(pull.rowsPerSecond)} products/s, ${pull.requests} requests to the API, ${pull.feeds} feeds, daemon CPU ${fmt(pull.cpu, 1)} s; ` +
          `API bulk ${fmt(api.seconds, 2)} s = ${fmt(api.rowsPerSecond)} products/s; ratio ${fmt(pull.rowsPerSecond / api.rowsPerSecond, 2)}`,
      );
    }
    console.log(
      `pull median: ${spread(pulls.map((p) => p.pull.rowsPerSecond))} products/s, ${spread(pulls.map((p) => p.pull.requests))} requests; API bulk ${spread(pulls.map((p) => p.api.rowsPerSecond))} products/s; ratio ${spread(
        pulls.map((p) => p.pull.rowsPerSecond / p.api.rowsPerSecond),
        2,
      )}`,
    );
  }
  console.log(JSON.stringify({ bench: 'connectors', rounds, pulls }));
} finally {
  await connection.close();
  await target.cleanup();
  fs.rmSync(work, { recursive: true, force: true });
}
