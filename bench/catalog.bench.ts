// npm run bench -- catalog. In one run on one database:
//  (a) 100,000 products (2 variations, 2 images each) through the API in requests of 1,000,
//      from the first POST until every feed is done, against (b) the same rows written by a
//      hand-written multi-row upsert loop straight into the same tables. Target a/b >= 0.5.
//  (c) a 1-product POST at 50 connections (autocannon in its own process) against the durable
//      floor, the bare Fastify route plus one durable INSERT of the body per request
//      (concurrent requests sharing commits, as the daemon's do). Target >= 0.5 of the floor.
//      Then the rate at which the one-product feeds left at the end of the run drain: >= 1,000/s.
//  (d) single-product feed latency on an idle daemon, POST -> done as a client sees it, p50/p99
//      over 200 feeds. Target p50 <= 10 ms.
//  (f) fair share: FAIR_FLOOD (20,000) one-product feeds of one shop, alone and while another
//      shop sends one feed at a time: its p99 <= 1 s, the flood's throughput >= 0.9 of alone.
//  (e) list speed in a shop of LIST_PRODUCTS (1,000,000) simple products stored through the API,
//      read right after (no VACUUM, no waiting for autovacuum): GET .../products/?page_size=100,
//      page 1 and deep pages, LIST_READS each. Targets: page 1 p50 <= 10 ms, any page <= 100 ms.
//      ONLY=a-d, ONLY=f or ONLY=e runs one part.
// Database: DATABASE_URL (a scratch database is made on that server and dropped after), else
// an embedded Postgres in a temp folder. PRODUCTS=20000 (and SECONDS=2) for a shorter run;
// WAYBILL_WORKER_CONCURRENCY for the daemon's feed batches in flight.
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import Fastify from 'fastify';
import { sql } from 'kysely';
import { benchTarget } from './bench-target.ts';
import { oneOrMany, Product } from '../src/catalog/catalog.schemas.ts';
import { GroupCommit } from '../src/db/group-commit.ts';
import { loadConfig } from '../src/config.ts';
import { validatorCompiler } from '../src/http/validation.ts';
import { createLogger } from '../src/logger.ts';
import { startDaemon } from '../src/main.ts';

const PRODUCTS = Number(process.env.PRODUCTS ?? 100_000);
const PER_REQUEST = 1_000;
const IN_FLIGHT = 4; // POSTs of (a) in flight at once
const CONNECTIONS = 50;
const SECONDS = Number(process.env.SECONDS ?? 10); // of each autocannon run in (c)
const LATENCY_FEEDS = 200;
const LIST_PRODUCTS = Number(process.env.LIST_PRODUCTS ?? 1_000_000);
const LIST_READS = 40;
const FAIR_FLOOD = Number(process.env.FAIR_FLOOD ?? 20_000);
const ONLY = process.env.ONLY;

const target = await benchTarget('catalog');
const env: Record<string, string> = {
  PORT: '0',
  LOG_LEVEL: 'warn',
  WAYBILL_CONNECTORS: path.join(os.tmpdir(), `none-${target.tag}.json`),
  ...target.env,
  // The daemon's feed workers (default: the daemon's own default).
  ...(process.env.WAYBILL_WORKER_CONCURRENCY === undefined ? {} : { WAYBILL_WORKER_CONCURRENCY: process.env.WAYBILL_WORKER_CONCURRENCY }),
};

const config = loadConfig(env);
const daemon = await startDaemon({ config, logger: createLogger({ level: 'warn', pretty: false }), role: 'all' });
const { services } = daemon;
const pool = daemon.connection.pool;
const shopA = await services.shops.create({ name: 'Bench API' });
const shopB = await services.shops.create({ name: 'Bench loader' });
const { key } = await services.shops.createKey(shopA.pk);
const headers = { authorization: `Token ${key}`, 'content-type': 'application/json', accept: 'application/json' };

const productOf = (i: number) => ({
  sku: `SKU-${i}`,
  name: `Product ${i}`,
  price: 10 + (i % 100),
  stock: i % 50,
  brand: 'Acme',
  availability: 'in_stock',
  description: 'A plain product description of about a hundred characters, as an ERP would send it to us.',
  images: [`https://cdn.example.com/p/${i}/1.jpg`, `https://cdn.example.com/p/${i}/2.jpg`],
  variations: [
    { sku: `SKU-${i}-S`, size: 'S', stock: 1, images: [`https://cdn.example.com/p/${i}/1.jpg`] },
    { sku: `SKU-${i}-M`, size: 'M', stock: 2, images: [`https://cdn.example.com/p/${i}/2.jpg`] },
  ],
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
const pending = async (): Promise<number> =>
  (await pool.query(`select count(*)::int as n from feeds where state in ('queued', 'processing')`)).rows[0].n as number;
async function drained(): Promise<void> {
  while ((await pending()) > 0) await sleep(20);
}

/** (b) The floor: one loop of multi-row upserts per 1,000 products, one transaction each. */
async function directLoad(shopPk: number): Promise<number> {
  const started = performance.now();
  const client = await pool.connect();
  try {
    for (let first = 0; first < PRODUCTS; first += PER_REQUEST) {
      const ps = Array.from({ length: Math.min(PER_REQUEST, PRODUCTS - first) }, (_, k) => productOf(first + k));
      await client.query('begin');
      const prod = await client.query(
        `insert into products (shop_pk, sku, name, price, stock, attrs)
         select $1, * from unnest($2::text[], $3::text[], $4::numeric[], $5::int[], $6::jsonb[])
         on conflict (shop_pk, sku) do update set name = excluded.name, price = excluded.price, stock = excluded.stock, attrs = excluded.attrs
         returning pk, sku`,
        [
          shopPk,
          ps.map((p) => p.sku),
          ps.map((p) => p.name),
          ps.map((p) => p.price),
          ps.map((p) => p.stock),
          ps.map((p) => JSON.stringify({ brand: p.brand, availability: p.availability, description: p.description })),
        ],
      );
      const pk = new Map<string, number>(prod.rows.map((r) => [r.sku, r.pk]));
      const imgs = ps.flatMap((p) => p.images.map((url, position) => ({ product: pk.get(p.sku)!, url, position })));
      const img = await client.query(
        `insert into product_images (product_pk, url, position) select * from unnest($1::bigint[], $2::text[], $3::int[])
         on conflict (product_pk, url) do update set position = excluded.position returning pk, url`,
        [imgs.map((x) => x.product), imgs.map((x) => x.url), imgs.map((x) => x.position)],
      );
      const imagePk = new Map<string, number>(img.rows.map((r) => [r.url, r.pk]));
      const vs = ps.flatMap((p) => p.variations.map((v) => ({ product: pk.get(p.sku)!, ...v })));
      const vr = await client.query(
        `insert into variations (product_pk, sku, price, stock, attrs) select * from unnest($1::bigint[], $2::text[], $3::numeric[], $4::int[], $5::jsonb[])
         on conflict (product_pk, sku) do update set stock = excluded.stock, attrs = excluded.attrs returning pk, sku`,
        [
          vs.map((v) => v.product),
          vs.map((v) => v.sku),
          vs.map(() => null),
          vs.map((v) => v.stock),
          vs.map((v) => JSON.stringify({ size: v.size })),
        ],
      );
      const vpk = new Map<string, number>(vr.rows.map((r) => [r.sku, r.pk]));
      await client.query(
        `insert into variation_images (variation_pk, image_pk, position) select * from unnest($1::bigint[], $2::bigint[], $3::int[]) on conflict do nothing`,
        [vs.map((v) => vpk.get(v.sku)!), vs.map((v) => imagePk.get(v.images[0]!)!), vs.map(() => 0)],
      );
      await client.query('commit');
    }
  } finally {
    client.release();
  }
  return (performance.now() - started) / 1000;
}

/** (a) Through the API: POSTs of 1,000, IN_FLIGHT at a time, until every feed is done. */
async function apiLoad(): Promise<{ seconds: number; posting: number }> {
  const bodies: string[] = [];
  for (let first = 0; first < PRODUCTS; first += PER_REQUEST) {
    bodies.push(JSON.stringify(Array.from({ length: Math.min(PER_REQUEST, PRODUCTS - first) }, (_, k) => productOf(first + k))));
  }
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < bodies.length) {
        const body = bodies[next++]!;
        const res = await fetch(`${daemon.url}/shops/${shopA.pk}/products/`, { method: 'POST', headers, body });
        if (res.status !== 201) throw new Error(`POST answered ${res.status}: ${await res.text()}`);
        await res.arrayBuffer();
      }
    }),
  );
  const posting = (performance.now() - started) / 1000;
  await drained();
  return { seconds: (performance.now() - started) / 1000, posting };
}

interface Cannon {
  requests: { average: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  '2xx': number;
}
/** autocannon in its own process (so its CPU is not the server's event loop). */
function cannon(url: string, body: string): Promise<Cannon> {
  const bin = path.join(path.dirname(fileURLToPath(import.meta.url)), '../node_modules/autocannon/autocannon.js');
  // -I: each request's [<id>] becomes a fresh id, so every POST is a different product.
  const args = [bin, '-c', String(CONNECTIONS), '-d', String(SECONDS), '-m', 'POST', '-I', '-j', '-b', body];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}=${v}`);
  args.push(url);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as Cannon) : reject(new Error(`autocannon exited ${code}`))));
  });
}

/** POSTs of PER_REQUEST `bodyOf(first)` to a shop, IN_FLIGHT at once, then until every feed of the shop is done: seconds. */
async function postAll(
  shopPk: number,
  auth: Record<string, string>,
  total: number,
  bodyOf: (first: number, n: number) => string,
): Promise<number> {
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < total) {
        const first = next;
        next += PER_REQUEST;
        const res = await fetch(`${daemon.url}/shops/${shopPk}/products/`, {
          method: 'POST',
          headers: auth,
          body: bodyOf(first, Math.min(PER_REQUEST, total - first)),
        });
        if (res.status !== 201) throw new Error(`POST answered ${res.status}: ${await res.text()}`);
        await res.arrayBuffer();
      }
    }),
  );
  await drained();
  return (performance.now() - started) / 1000;
}

/**
 * (e) A shop of LIST_PRODUCTS simple products stored through the API (POSTs of 1,000), then read
 * at once: no VACUUM, no waiting for autovacuum. Reads pages through the API.
 */
async function listSpeed(): Promise<void> {
  const shop = await services.shops.create({ name: 'Bench lists' });
  const { key: listKey } = await services.shops.createKey(shop.pk);
  const listAuth = { authorization: `Token ${listKey}`, 'content-type': 'application/json', accept: 'application/json' };
  const loaded = await postAll(shop.pk, listAuth, LIST_PRODUCTS, (first, n) =>
    JSON.stringify(
      Array.from({ length: n }, (_, k) => ({
        sku: `L-${String(first + k + 1).padStart(8, '0')}`,
        name: `Product ${first + k + 1}`,
        price: 10 + ((first + k) % 100),
        stock: (first + k) % 50,
        brand: 'Acme',
        availability: 'in_stock',
      })),
    ),
  );
  const pages = Math.ceil(LIST_PRODUCTS / 100);
  const read = async (page: number): Promise<number> => {
    const t0 = performance.now();
    const res = await fetch(`${daemon.url}/shops/${shop.pk}/products/?page_size=100&page=${page}`, { headers: listAuth });
    const body = (await res.json()) as { pk: number; sku: string }[];
    const ms = performance.now() - t0;
    if (
      res.status !== 200 ||
      Number(res.headers.get('x-total-count')) !== LIST_PRODUCTS ||
      body.length !== Math.min(100, LIST_PRODUCTS - (page - 1) * 100)
    ) {
      throw new Error(`page ${page}: ${res.status}, X-Total-Count ${res.headers.get('x-total-count')}, ${body.length} items`);
    }
    // POSTs in flight at once: pk order is not sku order, but a page is in pk order.
    if (body.some((p, i) => i > 0 && p.pk <= body[i - 1]!.pk)) throw new Error(`page ${page} is not in pk order`);
    return ms;
  };
  const first: number[] = [];
  const deep: number[] = [];
  const deepFrom = Math.min(5_000, Math.floor(pages / 2));
  for (let i = 0; i < LIST_READS; i++) {
    first.push(await read(1));
    deep.push(await read(deepFrom + Math.floor(Math.random() * (pages - deepFrom)) + 1));
  }
  const last = [await read(pages), await read(pages), await read(pages)];
  const worst = Math.max(...first, ...deep, ...last);
  console.log(
    `(e) ${LIST_PRODUCTS} products stored through the API in ${loaded.toFixed(1)} s (${(LIST_PRODUCTS / loaded).toFixed(0)} products/s), read right after, GET .../products/?page_size=100, ${LIST_READS} reads each:`,
  );
  console.log(
    `    page 1 p50 ${pct(first, 50).toFixed(1)} ms (target <= 10 ms); pages ${deepFrom + 1}-${pages} p50 ${pct(deep, 50).toFixed(1)} ms, p99 ${pct(deep, 99).toFixed(1)} ms; last page ${pct(last, 50).toFixed(1)} ms; slowest read ${worst.toFixed(1)} ms (target: any page <= 100 ms)`,
  );
  console.log(`    ${pct(first, 50) <= 10 && worst <= 100 ? 'targets met' : 'target NOT met'}`);
}

/**
 * (f) Fair share: the bench's shop floods FAIR_FLOOD one-product feeds (POSTs at 50
 * connections), alone and then while another shop sends one one-product feed at a time (POST
 * until the client reads done). Targets: the other shop's p99 <= 1 s; the flood's throughput with
 * it within 10% of alone.
 */
async function fairness(): Promise<void> {
  const other = await services.shops.create({ name: 'Bench other shop' });
  const { key: otherKey } = await services.shops.createKey(other.pk);
  const otherAuth = { authorization: `Token ${otherKey}`, 'content-type': 'application/json', accept: 'application/json' };
  let round = 0;
  const flood = async (): Promise<number> => {
    round++;
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (next < FAIR_FLOOD) {
          const i = next++;
          const res = await fetch(`${daemon.url}/shops/${shopA.pk}/products/`, {
            method: 'POST',
            headers,
            body: JSON.stringify([{ sku: `F-${round}-${i}`, name: 'Flood', price: 1, stock: 1 }]),
          });
          if (res.status !== 201) throw new Error(`POST answered ${res.status}`);
          await res.arrayBuffer();
        }
      }),
    );
    await drained();
    return (performance.now() - started) / 1000;
  };
  const alone = await flood();
  let stop = false;
  const times: number[] = [];
  const trickle = (async () => {
    for (let i = 0; !stop; i++) {
      const t0 = performance.now();
      const res = await fetch(`${daemon.url}/shops/${other.pk}/products/`, {
        method: 'POST',
        headers: otherAuth,
        body: JSON.stringify([{ sku: `O-${i}`, name: 'Other', price: 1, stock: 1 }]),
      });
      const feed = (await res.json()) as { pk: string };
      for (;;) {
        const f = (await (await fetch(`${daemon.url}/feeds/${feed.pk}/`, { headers: otherAuth })).json()) as { state: string };
        if (f.state === 'done') break;
        await sleep(5);
      }
      times.push(performance.now() - t0);
      await sleep(100);
    }
  })();
  const withOther = await flood().finally(() => (stop = true));
  await trickle;
  const ratio = alone / withOther;
  console.log(
    `(f) fair share: ${FAIR_FLOOD} one-product feeds of one shop at ${CONNECTIONS} connections, POST -> all done: alone ${(FAIR_FLOOD / alone).toFixed(0)} feeds/s, while another shop sends ${times.length} feeds ${(FAIR_FLOOD / withOther).toFixed(0)} feeds/s (ratio ${ratio.toFixed(2)}, target >= 0.9)`,
  );
  console.log(
    `    the other shop's one-product feeds, POST -> done seen by the client: p50 ${pct(times, 50).toFixed(1)} ms, p99 ${pct(times, 99).toFixed(1)} ms (target p99 <= 1,000 ms): ${pct(times, 99) <= 1_000 && ratio >= 0.9 ? 'targets met' : 'target NOT met'}`,
  );
}

// The baseline of (c): Fastify with the same body schema (Ajv, strict) and nothing behind it.
const bare = Fastify({ logger: false });
bare.setValidatorCompiler(validatorCompiler);
bare.post('/shops/:shop/products/', { schema: { body: oneOrMany(Product, 'Product or array') } }, async (_req, reply) =>
  reply.code(201).send({}),
);
// The durable floor of (c): the same route, answering once its body is committed to a table,
// with the daemon's group commit (one INSERT and one commit for the requests waiting together).
await sql`create table bench_floor_posts (id bigserial primary key, body jsonb not null)`.execute(daemon.connection.db);
const floorCommits = new GroupCommit<string, null>({
  db: daemon.connection.db,
  write: async (trx, bodies) => {
    await sql`insert into bench_floor_posts (body) select * from unnest(${bodies}::jsonb[])`.execute(trx);
    return bodies.map(() => null);
  },
});
bare.post('/floor/shops/:shop/products/', { schema: { body: oneOrMany(Product, 'Product or array') } }, async (req, reply) => {
  await floorCommits.submit(JSON.stringify(req.body));
  return reply.code(201).send({});
});
const bareUrl = await bare.listen({ host: '127.0.0.1', port: 0 });

/** (a) to (d). */
async function ingestAndWrites(): Promise<void> {
  console.log(
    `catalog: ${PRODUCTS} products x (2 variations + 2 images), requests of ${PER_REQUEST}; database ${daemon.connection.mode}; ${os.cpus().length} CPUs; worker concurrency ${config.workerConcurrency}`,
  );
  const direct = await directLoad(shopB.pk);
  const api = await apiLoad();
  const counts = (
    await pool.query(
      `select (select count(*) from products where shop_pk = $1)::int as p, (select count(*) from variations v join products p on p.pk = v.product_pk where p.shop_pk = $1)::int as v,
    (select count(*) from product_images i join products p on p.pk = i.product_pk where p.shop_pk = $1)::int as i`,
      [shopA.pk],
    )
  ).rows[0];
  const aRate = PRODUCTS / api.seconds;
  const bRate = PRODUCTS / direct;
  console.log(`(b) direct multi-row upsert loop     ${bRate.toFixed(0).padStart(7)} products/s  (${direct.toFixed(1)} s)`);
  console.log(
    `(a) API, POST -> every feed done     ${aRate.toFixed(0).padStart(7)} products/s  (${api.seconds.toFixed(1)} s; POSTs answered after ${api.posting.toFixed(1)} s)`,
  );
  console.log(
    `    ratio a/b: ${(aRate / bRate).toFixed(2)} (target >= 0.7); stored ${counts.p} products, ${counts.v} variations, ${counts.i} images`,
  );

  const one = JSON.stringify([{ ...productOf(9_999_999), sku: 'AC-[<id>]', variations: [] }]);
  await cannon(`${bareUrl}/shops/${shopA.pk}/products/`, one); // warm-up
  const b = await cannon(`${bareUrl}/shops/${shopA.pk}/products/`, one);
  const floor = await cannon(`${bareUrl}/floor/shops/${shopA.pk}/products/`, one);
  await drained();
  const c = await cannon(`${daemon.url}/shops/${shopA.pk}/products/`, one);
  console.log(`(c) bare Fastify, same schema        ${b.requests.average.toFixed(0).padStart(7)} req/s  p99 ${b.latency.p99} ms`);
  console.log(
    `    bare + 1 durable INSERT (floor)  ${floor.requests.average.toFixed(0).padStart(7)} req/s  p99 ${floor.latency.p99} ms  (floor/bare ${(floor.requests.average / b.requests.average).toFixed(2)})`,
  );
  console.log(
    `    1-product POST (feed + job)      ${c.requests.average.toFixed(0).padStart(7)} req/s  p99 ${c.latency.p99} ms  non-2xx ${c.non2xx + c.errors}`,
  );
  console.log(
    `    ratio: ${(c.requests.average / b.requests.average).toFixed(2)}; against the durable floor ${(c.requests.average / floor.requests.average).toFixed(2)} (target >= 0.5)`,
  );
  const drainStart = performance.now();
  const left = await pending();
  await drained();
  const drainSeconds = (performance.now() - drainStart) / 1000;
  console.log(
    `    the ${c['2xx']} feeds of that run were all done ${drainSeconds.toFixed(1)} s after it: ${left} not done at its end, drained at ${(left / drainSeconds).toFixed(0)} feeds/s (target >= 1,000)`,
  );

  const client: number[] = [];
  const pks: string[] = [];
  for (let i = 0; i < LATENCY_FEEDS; i++) {
    const t0 = performance.now();
    const res = await fetch(`${daemon.url}/shops/${shopA.pk}/products/`, {
      method: 'POST',
      headers,
      body: JSON.stringify([productOf(5_000_000 + i)]),
    });
    const feed = (await res.json()) as { pk: string };
    for (;;) {
      const f = (await (await fetch(`${daemon.url}/feeds/${feed.pk}/`, { headers })).json()) as { state: string };
      if (f.state === 'done') break;
      await sleep(2);
    }
    client.push(performance.now() - t0);
    pks.push(feed.pk);
  }
  const server = (
    await pool.query(`select extract(epoch from finished_at - created_at) * 1000 as ms from feeds where pk = any($1::uuid[])`, [pks])
  ).rows.map((r) => Number(r.ms));
  console.log(
    `(d) 1-product feed, POST -> done seen by the client: p50 ${pct(client, 50).toFixed(1)} ms, p99 ${pct(client, 99).toFixed(1)} ms (target p50 <= 10 ms)`,
  );
  console.log(
    `    created_at -> finished_at in the database:        p50 ${pct(server, 50).toFixed(1)} ms, p99 ${pct(server, 99).toFixed(1)} ms`,
  );
  if (counts.p !== PRODUCTS || counts.v !== 2 * PRODUCTS || counts.i !== 2 * PRODUCTS) {
    console.error('FAILED: the API did not store every row');
    process.exitCode = 1;
  }
}

try {
  console.log(
    `load: ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')} (1/5/15 min) at the start`,
  );
  if (ONLY === undefined || ONLY === 'a-d') await ingestAndWrites();
  if (ONLY === undefined || ONLY === 'f') await fairness();
  if (ONLY === undefined || ONLY === 'e') await listSpeed();
  console.log(
    `load: ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')} (1/5/15 min) at the end`,
  );
} finally {
  await bare.close();
  await daemon.stop();
  await target.cleanup();
}
