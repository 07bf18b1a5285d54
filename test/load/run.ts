// npm run test:load: autocannon for LOAD_SECONDS (default 300) at a mixed workload — 60%
// catalog writes of 10 products, 30% order actions, 10% feed reads — against a daemon in its
// own process. Prints the daemon's RSS and the feeds waiting every minute. Pass: error rate
// < 0.1%; RSS flat (the last minute's average within 10% of the first minute after warm-up);
// every accepted write stored and the backlog drained; then SIGTERM with load running: no
// accepted request lost. The daemon is stopped whatever happens (and killed if this process
// exits first); only the last 1 MB of its output is kept, so a soak of hours fits.
import fs from 'node:fs';
// @ts-expect-error autocannon ships no types
import autocannon from 'autocannon';
import {
  freshTarget,
  runCli,
  shopWithKey,
  sleep,
  spawnDaemon,
  until,
  type DaemonProcess,
  type Outcome,
  type Scenario,
  runScenarios,
} from '../faults/harness.ts';

const SECONDS = Number(process.env.LOAD_SECONDS ?? 300);
const CONNECTIONS = Number(process.env.LOAD_CONNECTIONS ?? 20);
// Requests per second across all connections; unset: as fast as the daemon answers. A soak
// sets it below what the workers apply, so the backlog stays flat and memory is measured at
// a steady state rather than under a queue that grows for the whole run.
const RATE = process.env.LOAD_RATE === undefined ? undefined : Number(process.env.LOAD_RATE);
const ORDERS = 1_000;

const avg = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

const rssMb = (pid: number): number => {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
};

interface Ctx {
  kind?: string;
  skus?: string[];
}
interface AutocannonResult {
  requests: { total: number; average: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodeStats: Record<string, { count: number }>;
}

/** One autocannon run of the mix; records the skus of every accepted write and the feeds read. */
function mixedLoad(
  daemon: DaemonProcess,
  shop: { shopPk: number; headers: Record<string, string> },
  mpPk: number,
  seconds: number,
  accepted: string[],
  feeds: string[],
  tag: string,
) {
  let n = 0;
  const base = `/shops/${shop.shopPk}`;
  return autocannon({
    url: daemon.url,
    connections: CONNECTIONS,
    ...(RATE === undefined ? {} : { overallRate: RATE }),
    duration: seconds,
    headers: shop.headers,
    requests: [
      {
        setupRequest(req: Record<string, unknown>, context: Ctx) {
          const i = n++;
          const slot = i % 10;
          if (slot < 6) {
            const skus = Array.from({ length: 10 }, (_, j) => `${tag}-${i}-${j}`);
            context.kind = 'write';
            context.skus = skus;
            return {
              ...req,
              headers: { ...shop.headers },
              method: 'POST',
              path: `${base}/products/`,
              body: JSON.stringify(
                skus.map((sku) => ({ sku, name: 'Load', price: 9.99, stock: 3, images: [`https://img.example.com/${sku}.jpg`] })),
              ),
            };
          }
          if (slot < 9) {
            context.kind = 'action';
            const action = i % 20 < 10 ? 'ready_to_ship' : 'pending';
            return {
              ...req,
              headers: { ...shop.headers },
              method: 'POST',
              path: `${base}/marketplace/${mpPk}/orders/${7_000_000 + (i % ORDERS)}/${action}/`,
              body: '{}',
            };
          }
          context.kind = 'read';
          const feed = feeds[i % Math.max(1, feeds.length)];
          const { body: _body, ...get } = req;
          // autocannon writes Content-Length into the headers object it is given: each request gets its own.
          return {
            ...get,
            headers: { authorization: shop.headers.authorization!, accept: 'application/json' },
            method: 'GET',
            path: feed === undefined ? `${base}/feeds/` : `/feeds/${feed}/`,
          };
        },
        onResponse(status: number, body: string, context: Ctx, headers: Record<string, string>) {
          if (status >= 300 && process.env.LOAD_DEBUG) console.log(context.kind, status, body.slice(0, 300));
          if (context.kind === 'write' && status === 201) {
            accepted.push(...(context.skus ?? []));
            const location = headers.location;
            if (location !== undefined && feeds.length < 5_000) feeds.push(location.split('/').at(-2)!);
          }
        },
      },
    ],
  }) as Promise<AutocannonResult>;
}

const load: Scenario = {
  name: 'load',
  async run(): Promise<Outcome> {
    const target = await freshTarget();
    let daemon = await spawnDaemon(target.env);
    const problems: string[] = [];
    const figures: Record<string, string | number> = {};
    try {
      const shop = await shopWithKey(target);
      const mpPk = (await runCli(['marketplaces', 'create', '--name', 'Load MP', '--json'], target.env)).json<{ pk: number }>().pk;
      for (let i = 0; i < ORDERS; i += 50) {
        await Promise.all(
          Array.from({ length: 50 }, (_, j) =>
            fetch(`${daemon.url}/shops/${shop.shopPk}/marketplace/${mpPk}/orders/`, {
              method: 'POST',
              headers: shop.headers,
              body: JSON.stringify({ order_pk: 7_000_000 + i + j, items: [{ item_pk: 1, sku: 'X', quantity: 1, price: 1 }] }),
            }),
          ),
        );
      }
      // Phase 1: the steady load, RSS sampled every 5 s, printed every minute.
      const accepted: string[] = [];
      const feeds: string[] = [];
      const rss: { t: number; mb: number }[] = [];
      const pid = daemon.child.pid!;
      const started = Date.now();
      const sampler = setInterval(() => rss.push({ t: Date.now(), mb: rssMb(pid) }), 5_000);
      let minutes = 0;
      const perMinute = setInterval(() => {
        minutes++;
        const mine = rss.filter((s) => s.t > started + (minutes - 1) * 60_000).map((s) => s.mb);
        void target.query<{ n: number }>(`select count(*)::int n from feeds where state in ('queued', 'processing')`).then(
          (r) =>
            console.log(
              `  load minute ${minutes}: RSS ${avg(mine).toFixed(0)} MB (max ${Math.max(...mine).toFixed(0)}), feeds waiting ${r[0]?.n ?? '?'}`,
            ),
          () => console.log(`  load minute ${minutes}: RSS ${avg(mine).toFixed(0)} MB (max ${Math.max(...mine).toFixed(0)})`),
        );
      }, 60_000);
      let result: AutocannonResult;
      try {
        result = await mixedLoad(daemon, shop, mpPk, SECONDS, accepted, feeds, 'L');
      } finally {
        clearInterval(sampler);
        clearInterval(perMinute);
      }
      const total = result.requests.total;
      const errors = result.non2xx + result.errors + result.timeouts;
      // Warm-up: the first minute (a quarter of a shorter run). Compared: the minute after it
      // and the last minute.
      const warmUp = Math.min(60_000, (SECONDS * 1000) / 4);
      const span = Math.min(60_000, (SECONDS * 1000) / 2);
      const ended = Date.now();
      const first = rss.filter((s) => s.t - started > warmUp && s.t - started <= warmUp + span).map((s) => s.mb);
      const last = rss.filter((s) => ended - s.t <= span).map((s) => s.mb);
      const flat = avg(last) <= avg(first) * 1.1;
      Object.assign(figures, {
        seconds_of_load: SECONDS,
        connections: CONNECTIONS,
        requests: total,
        req_per_s: Math.round(result.requests.average),
        p50_ms: result.latency.p50,
        p99_ms: result.latency.p99,
        error_rate_pct: ((100 * errors) / Math.max(1, total)).toFixed(3),
        rss_after_warmup_mb: avg(first).toFixed(0),
        rss_last_min_mb: avg(last).toFixed(0),
        rss_max_mb: Math.max(...rss.map((s) => s.mb)).toFixed(0),
      });
      if (errors / Math.max(1, total) >= 0.001) {
        problems.push(
          `error rate ${errors}/${total} (non-2xx ${result.non2xx}, errors ${result.errors}, timeouts ${result.timeouts}); statuses ${JSON.stringify(result.statusCodeStats)}; errors ${JSON.stringify((result as unknown as { errorsDetail?: unknown }).errorsDetail ?? '')}`,
        );
      }
      if (!flat)
        problems.push(
          `RSS not flat: ${avg(first).toFixed(0)} MB after warm-up, ${avg(last).toFixed(0)} MB in the last minute (more than 10% up)`,
        );

      // Phase 2: SIGTERM with load running; then every accepted write must be stored.
      const acceptedDuringStop: string[] = [];
      const stopping = mixedLoad(daemon, shop, mpPk, 12, acceptedDuringStop, feeds, 'S');
      await sleep(4_000);
      daemon.child.kill('SIGTERM');
      const code = await daemon.exited;
      await stopping;
      figures.exit_code_on_sigterm = String(code);
      figures.accepted_while_stopping = acceptedDuringStop.length;
      if (code !== 0) problems.push(`exit code ${code} on SIGTERM`);
      daemon = await spawnDaemon(target.env);
      // The API accepts feeds faster than two workers apply them: the backlog left by the load
      // drains after it (its size and drain time are reported).
      const backlog =
        (await target.query<{ n: number }>(`select count(*)::int n from feeds where state in ('queued', 'processing')`))[0]?.n ?? 0;
      const drainStarted = Date.now();
      await until(
        'every feed done',
        async () => {
          const r = await target.query<{ n: number }>(`select count(*)::int n from feeds where state in ('queued', 'processing')`);
          return r[0]?.n === 0;
        },
        Number(process.env.LOAD_DRAIN_SECONDS ?? 3600) * 1000,
        2_000,
      );
      figures.backlog_feeds_after_load = backlog;
      figures.backlog_drain_s = ((Date.now() - drainStarted) / 1000).toFixed(0);
      figures.rss_verdict = `${flat ? 'flat' : 'NOT-flat'}(${avg(first).toFixed(0)}->${avg(last).toFixed(0)}MB,backlog-drained)`;
      console.log(
        `  RSS verdict: ${flat ? 'flat' : 'NOT flat'} (${avg(first).toFixed(0)} MB after warm-up, ${avg(last).toFixed(0)} MB in the last minute; within 10%: ${flat}); backlog of ${backlog} feeds drained in ${figures.backlog_drain_s} s`,
      );
      const stored = new Set(
        (await target.query<{ sku: string }>(`select sku from products where shop_pk = $1`, [shop.shopPk])).map((r) => r.sku),
      );
      const lost = [...accepted, ...acceptedDuringStop].filter((s) => !stored.has(s));
      figures.accepted_products = accepted.length + acceptedDuringStop.length;
      figures.lost = lost.length;
      if (lost.length > 0) problems.push(`${lost.length} accepted products not stored, e.g. ${lost.slice(0, 3).join(', ')}`);
    } finally {
      // Stopped whatever happened; killed if it does not stop within its shutdown bound.
      if (daemon.child.exitCode === null && daemon.child.signalCode === null) {
        daemon.child.kill('SIGTERM');
        const kill = setTimeout(() => daemon.child.kill('SIGKILL'), 40_000);
        await daemon.exited;
        clearTimeout(kill);
      }
      await target.close();
    }
    return { pass: problems.length === 0, figures, detail: problems.join('\n') };
  },
};

await runScenarios('waybill load test', [load]);
