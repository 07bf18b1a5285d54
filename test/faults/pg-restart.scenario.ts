// Postgres restart under load: 200 req/s of catalog and order writes while the database goes
// away (embedded: its server killed, restarted by the daemon's watchdog; external: every
// connection of the database terminated for 3 s). The daemon stays up, answers 503 problem
// JSON with Retry-After while the database is away, recovers by itself, and every request it
// answered 201/204 is in the database; no feed stays stuck.
import fs from 'node:fs/promises';
import path from 'node:path';
import { freshTarget, runCli, shopWithKey, sleep, spawnDaemon, until, type Outcome, type Scenario } from './harness.ts';

const RATE = 200; // requests per second
const SECONDS = Number(process.env.PG_RESTART_SECONDS ?? 25);
const OUTAGE_AT = 8; // seconds into the load
const ORDERS = 100;
/** The daemon's database deadline (WAYBILL_DB_TIMEOUT_MS, its default) and the slack allowed on top. */
const DEADLINE_MS = 5_000;
const SLACK_MS = 3_000;

interface OrderTrack {
  orderPk: number;
  busy: boolean;
  next: 'ready_to_ship' | 'pending';
  acked: number;
  last: string;
}

export const pgRestart: Scenario = {
  name: 'pg-restart-under-load',
  async run(): Promise<Outcome> {
    const target = await freshTarget();
    const daemon = await spawnDaemon(target.env);
    const problems: string[] = [];
    const statuses = new Map<number, number>();
    let networkErrors = 0;
    let badOutageReplies = 0;
    let slowestMs = 0;
    const acceptedSkus: string[] = [];
    try {
      const shop = await shopWithKey(target);
      const mpPk = (await runCli(['marketplaces', 'create', '--name', 'Load MP', '--json'], target.env)).json<{ pk: number }>().pk;
      const orders: OrderTrack[] = [];
      for (let i = 0; i < ORDERS; i++) {
        const orderPk = 5_000_000 + i;
        const r = await fetch(`${daemon.url}/shops/${shop.shopPk}/marketplace/${mpPk}/orders/`, {
          method: 'POST',
          headers: shop.headers,
          body: JSON.stringify({ order_pk: orderPk, reference: `R${i}`, items: [{ item_pk: 1, sku: 'A', quantity: 1, price: 1 }] }),
        });
        if (r.status !== 201) throw new Error(`intake answered ${r.status}`);
        orders.push({ orderPk, busy: false, next: 'ready_to_ship', acked: 0, last: 'pending' });
      }
      const base = `${daemon.url}/shops/${shop.shopPk}`;
      const count = (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1);
      // Every answer, the 503s of the outage included, comes within the database deadline
      // (WAYBILL_DB_TIMEOUT_MS) plus slack for a loaded machine; before deadlines some waited 20-70 s.
      const timed = async (url: string, init: RequestInit): Promise<Response> => {
        const started = Date.now();
        const res = await fetch(url, init);
        slowestMs = Math.max(slowestMs, Date.now() - started);
        return res;
      };
      const checkRefusal = async (res: Response) => {
        // While the database is away the only acceptable refusal is 503 problem JSON + Retry-After.
        const body = await res.text();
        if (
          res.status !== 503 ||
          !res.headers.get('content-type')?.startsWith('application/problem+json') ||
          res.headers.get('retry-after') === null
        ) {
          badOutageReplies++;
          if (badOutageReplies <= 3) problems.push(`unexpected reply ${res.status}: ${body.slice(0, 200)}`);
        }
      };
      let seq = 0;
      const inflight = new Set<Promise<void>>();
      const send = (): void => {
        const n = seq++;
        const p = (async () => {
          try {
            if (n % 2 === 0) {
              const sku = `L-${n}`;
              const res = await timed(`${base}/products/`, {
                method: 'POST',
                headers: shop.headers,
                body: JSON.stringify({ sku, name: 'Load', price: 1, stock: 1 }),
                signal: AbortSignal.timeout(15_000),
              });
              count(res.status);
              if (res.status === 201) acceptedSkus.push(sku);
              else await checkRefusal(res);
            } else {
              const o = orders.find((x) => !x.busy);
              if (o === undefined) return;
              o.busy = true;
              try {
                const res = await timed(`${base}/marketplace/${mpPk}/orders/${o.orderPk}/${o.next}/`, {
                  method: 'POST',
                  headers: shop.headers,
                  body: '{}',
                  signal: AbortSignal.timeout(15_000),
                });
                count(res.status);
                if (res.status === 204) {
                  o.acked++;
                  o.last = o.next;
                  o.next = o.next === 'ready_to_ship' ? 'pending' : 'ready_to_ship';
                } else await checkRefusal(res);
              } finally {
                o.busy = false;
              }
            }
          } catch {
            networkErrors++;
          }
        })();
        inflight.add(p);
        void p.finally(() => inflight.delete(p));
      };
      const started = Date.now();
      let outage = false;
      const pgPidFile = target.dataDir === null ? null : path.join(target.dataDir, 'pg', 'postmaster.pid');
      while (Date.now() - started < SECONDS * 1000) {
        const due = Math.floor(((Date.now() - started) / 1000) * RATE);
        while (seq < due) send();
        if (!outage && Date.now() - started > OUTAGE_AT * 1000) {
          outage = true;
          if (pgPidFile !== null) {
            const pid = Number((await fs.readFile(pgPidFile, 'utf8')).split('\n')[0]);
            process.kill(pid, 'SIGKILL');
          } else {
            const db = new URL(process.env.DATABASE_URL!);
            const name = (await target.query<{ d: string }>('select current_database() d'))[0]!.d;
            const end = Date.now() + 3_000;
            void (async () => {
              while (Date.now() < end) {
                await target
                  .query(`select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()`, [name])
                  .catch(() => undefined);
                await sleep(100);
              }
            })();
            void db;
          }
        }
        await sleep(5);
      }
      await Promise.all([...inflight]);
      // Every accepted write is there, and no feed is stuck.
      const settled = await until(
        'every accepted feed done',
        async () => {
          const r = await target.query<{ n: number }>(`select count(*)::int n from feeds where state in ('queued', 'processing')`);
          return r[0]?.n === 0;
        },
        180_000,
        500,
      ).then(
        () => true,
        () => false,
      );
      if (!settled) {
        const stuck = await target.query<{ pk: string; state: string; leased_until: string | null; created_at: string }>(
          `select pk::text, state, leased_until::text, created_at::text from feeds where state in ('queued', 'processing') order by created_at limit 5`,
        );
        const jobs = await target.query<{ state: string; n: number }>(
          `select state, count(*)::int n from pgboss.job where name like 'feed.process%' group by 1`,
        );
        problems.push(`feeds stuck: ${JSON.stringify(stuck)}; feed.process jobs by state: ${JSON.stringify(jobs)}`);
      }
      const stored = new Set(
        (await target.query<{ sku: string }>(`select sku from products where shop_pk = $1`, [shop.shopPk])).map((r) => r.sku),
      );
      const lost = acceptedSkus.filter((s) => !stored.has(s));
      if (lost.length > 0) problems.push(`${lost.length} accepted products missing, e.g. ${lost.slice(0, 3).join(', ')}`);
      for (const o of orders) {
        const got = (await (await fetch(`${base}/marketplace/${mpPk}/orders/${o.orderPk}/`, { headers: shop.headers })).json()) as {
          status: string;
          history: { action: string }[];
        };
        const changes = got.history.filter((h) => h.action === 'ready_to_ship' || h.action === 'pending').length;
        if (got.status !== o.last || changes < o.acked)
          problems.push(`order ${o.orderPk}: status ${got.status}, expected ${o.last}; ${changes} changes for ${o.acked} acknowledged`);
      }
      if (networkErrors > 0) problems.push(`${networkErrors} requests got no HTTP answer (the daemon must stay up)`);
      if ((statuses.get(503) ?? 0) === 0) problems.push('no 503 was seen: the outage did not happen?');
      if (slowestMs > DEADLINE_MS + SLACK_MS)
        problems.push(`a request waited ${slowestMs} ms: over the database deadline of ${DEADLINE_MS} ms (+${SLACK_MS} ms slack)`);
      const ready = await fetch(`${daemon.url}/readyz`);
      if (ready.status !== 200) problems.push(`readyz answers ${ready.status} after the load`);
    } catch (error) {
      problems.push(
        `${String(error)}; daemon ${daemon.child.exitCode === null ? 'running' : `exited ${daemon.child.exitCode}`}; its last lines:\n${daemon
          .output()
          .split('\n')
          .filter((l) => !l.includes('"request completed"') && !l.includes('"incoming request"'))
          .slice(-60)
          .join('\n')
          .slice(0, 12000)}`,
      );
    } finally {
      daemon.child.kill('SIGTERM');
      await daemon.exited;
      await target.close();
    }
    const total = [...statuses.values()].reduce((a, b) => a + b, 0);
    return {
      pass: problems.length === 0,
      figures: {
        requests: total,
        rate_per_s: RATE,
        ...Object.fromEntries([...statuses].map(([k, v]) => [`http_${k}`, v])),
        accepted_products: acceptedSkus.length,
        no_answer: networkErrors,
        bad_refusals: badOutageReplies,
        slowest_reply_ms: slowestMs,
      },
      detail: problems.slice(0, 10).join('\n'),
    };
  },
};
