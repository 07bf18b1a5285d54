// npm run bench -- orders: order actions at 50 connections over 1,000 orders (ready_to_ship,
// then ship with tracking), against a baseline measured in the same run: a bare Fastify route
// doing the same auth (ShopService.authenticate) and one indexed UPDATE of the order row.
// Target: actions >= 0.5 x the baseline's req/s. Database: DATABASE_URL (a scratch database is
// made on that server and dropped after), else an embedded Postgres in a temp folder.
//
// The tables are ANALYZEd after each round's orders are made, before anything is timed, as
// autovacuum does on a running server: without statistics the planner finds the baseline's
// order by reading every order of the shop, which made the baseline several times slower and
// the ratio look better than it is (see docs/benchmarks.md, Orders).
import os from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { performance } from 'node:perf_hooks';
import { benchTarget } from './bench-target.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { startDaemon } from '../src/main.ts';

const CONNECTIONS = 50;
// ORDERS (at most 100,000: rounds use blocks of order numbers that far apart), WARMUP_ORDERS
// and ROUNDS in the environment make a shorter run.
const ORDERS = Number(process.env.ORDERS ?? 1_000);
const WARMUP_ORDERS = Number(process.env.WARMUP_ORDERS ?? 200);
const ROUNDS = Number(process.env.ROUNDS ?? 5);

interface Result {
  duration: number;
  latency: { p50: number; p99: number; average: number };
  '2xx': number;
  non2xx: number;
  errors: number;
  timeouts: number;
}
interface Req {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}
type Autocannon = (opts: Record<string, unknown>) => Promise<Result> & { on(event: 'response', listener: () => void): void };
const { default: autocannon } = (await import('autocannon' as string)) as { default: Autocannon };

const target = await benchTarget('orders');
const env: Record<string, string> = {
  PORT: '0',
  LOG_LEVEL: 'warn',
  WAYBILL_CONNECTORS: path.join(os.tmpdir(), `none-${target.tag}.json`),
  ...target.env,
};

const config = loadConfig(env);
const logger = createLogger({ level: 'warn', pretty: false });
const daemon = await startDaemon({ config, logger, role: 'api' });
const { services } = daemon;
const shop = await services.shops.create({ name: 'Bench shop' });
const { key } = await services.shops.createKey(shop.pk);
const mp = (await services.marketplaces.create({ name: 'Bench marketplace', pk: 15 })).pk;
const headers = { authorization: `Token ${key}`, 'content-type': 'application/json', accept: 'application/json' };

/** count orders of 2 items from order_pk `first`; then fresh planner statistics (see the header). */
async function makeOrders(first: number, count: number): Promise<void> {
  for (let start = 0; start < count; start += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, count - start) }, (_, i) =>
        services.orders.intake(
          shop.pk,
          mp,
          {
            order_pk: first + start + i,
            items: [
              { item_pk: 1, sku: 'A1', quantity: 1, price: 10.5 },
              { item_pk: 2, sku: 'B2', quantity: 2, price: 3 },
            ],
          },
          'connector:bench',
        ),
      ),
    );
  }
  await daemon.connection.pool.query('analyze orders, order_items, shipments');
}

/** 2 x count requests: ready_to_ship on every order, then ship with tracking on every order. */
function actionRequests(first: number, count: number): (req: Req) => Req {
  let n = 0;
  return (req) => {
    const i = n++;
    const orderPk = first + (i % count);
    const ship = Math.floor(i / count) % 2 === 1;
    const body = ship ? { carrier: 'DHL', tracking_code: `JD${orderPk}`, delivery_time: 2 } : {};
    return {
      ...req,
      method: 'POST',
      path: `/shops/${shop.pk}/marketplace/${mp}/orders/${orderPk}/${ship ? 'ship' : 'ready_to_ship'}/`,
      body: JSON.stringify(body),
    };
  };
}

function bareRequests(first: number, count: number): (req: Req) => Req {
  let n = 0;
  return (req) => {
    const orderPk = first + (n++ % count);
    return { ...req, method: 'POST', path: `/bare/shops/${shop.pk}/marketplace/${mp}/orders/${orderPk}/touch/`, body: '{}' };
  };
}

// The baseline: the same auth service and one indexed UPDATE, no state machine, no history.
const bare = Fastify({ logger: false });
bare.post<{ Params: { shop: string; mp: string; order: string } }>(
  '/bare/shops/:shop/marketplace/:mp/orders/:order/touch/',
  async (request, reply) => {
    const token = /^Token\s+(\S+)$/.exec(request.headers.authorization ?? '')?.[1];
    const principal = await services.shops.authenticate(token);
    if (principal === null || String(principal.shopPk) !== request.params.shop) return reply.code(404).send();
    const r = await daemon.connection.pool.query(
      'update orders set updated_at = now() where shop_pk = $1 and marketplace_pk = $2 and order_pk = $3',
      [principal.shopPk, Number(request.params.mp), Number(request.params.order)],
    );
    return reply.code(r.rowCount === 1 ? 204 : 404).send();
  },
);
const bareUrl = await bare.listen({ host: '127.0.0.1', port: 0 });

async function run(url: string, amount: number, setupRequest: (req: Req) => Req): Promise<Result & { rps: number }> {
  const started = performance.now();
  let last = started;
  const instance = autocannon({ url, connections: CONNECTIONS, amount, headers, requests: [{ setupRequest }] });
  // autocannon ends a run on its next whole-second tick: time the last response instead.
  instance.on('response', () => {
    last = performance.now();
  });
  const r = await instance;
  return { ...r, rps: r['2xx'] / ((last - started) / 1000) };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const row = (name: string, r: Result & { rps: number }) =>
  `  ${name.padEnd(36)} ${r.rps.toFixed(0).padStart(6)} req/s   p50 ${String(r.latency.p50).padStart(4)} ms   p99 ${String(r.latency.p99).padStart(4)} ms   non-2xx ${r.non2xx + r.errors + r.timeouts}`;

try {
  console.log(
    `orders: ${CONNECTIONS} connections, ${ORDERS} orders of 2 items per round, ${ROUNDS} rounds, database ${daemon.connection.mode}, ${os.cpus().length} CPUs, load average ${os.loadavg()[0]!.toFixed(1)}`,
  );
  await makeOrders(900_000, WARMUP_ORDERS);
  await run(daemon.url!, 2 * WARMUP_ORDERS, actionRequests(900_000, WARMUP_ORDERS));
  await run(bareUrl, 2 * WARMUP_ORDERS, bareRequests(900_000, WARMUP_ORDERS));

  // Rounds alternate which side runs first, so drift in the machine's load hits both alike.
  const rounds: { baseline: Result & { rps: number }; actions: Result & { rps: number } }[] = [];
  let failed = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const first = 1 + round * 100_000;
    await makeOrders(first, ORDERS);
    const sides = round % 2 === 0 ? (['baseline', 'actions'] as const) : (['actions', 'baseline'] as const);
    const r: Partial<(typeof rounds)[number]> = {};
    for (const side of sides) {
      r[side] =
        side === 'baseline'
          ? await run(bareUrl, 2 * ORDERS, bareRequests(first, ORDERS))
          : await run(daemon.url!, 2 * ORDERS, actionRequests(first, ORDERS));
    }
    const shipped = await services.orders.list(shop.pk, mp, { status: 'shipped', page: 1, pageSize: 1 });
    failed += r.actions!.non2xx + r.actions!.errors + r.actions!.timeouts;
    console.log(
      `round ${round + 1}: ratio ${(r.actions!.rps / r.baseline!.rps).toFixed(2)}, orders shipped so far ${shipped.count - WARMUP_ORDERS} of ${(round + 1) * ORDERS}`,
    );
    console.log(row('baseline (auth + 1 indexed UPDATE)', r.baseline!));
    console.log(row('order actions (ready_to_ship, ship)', r.actions!));
    if (shipped.count !== (round + 1) * ORDERS + WARMUP_ORDERS) failed++;
    rounds.push(r as (typeof rounds)[number]);
  }
  const ratios = rounds.map((r) => r.actions.rps / r.baseline.rps);
  console.log(
    `median baseline ${median(rounds.map((r) => r.baseline.rps)).toFixed(0)} req/s (p99 ${median(rounds.map((r) => r.baseline.latency.p99))} ms); ` +
      `median actions ${median(rounds.map((r) => r.actions.rps)).toFixed(0)} req/s (p99 ${median(rounds.map((r) => r.actions.latency.p99))} ms)`,
  );
  console.log(
    `median ratio actions/baseline: ${median(ratios).toFixed(2)} (rounds: ${ratios.map((x) => x.toFixed(2)).join(', ')}; target >= 0.5)`,
  );
  if (failed > 0) {
    console.error('FAILED: some actions were not applied');
    process.exitCode = 1;
  }
} finally {
  await bare.close();
  await daemon.stop();
  await target.cleanup();
}
