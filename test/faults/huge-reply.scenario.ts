// A carrier that answers 320 MB (with and without Content-Length), four shipments checked at
// once (four huge answers in flight together), four runs in a row, while clients keep using the API: the daemon stays up and keeps
// answering, its resident memory stays bounded (each answer is cut at max_response_bytes), and
// every run records the error (run record and each shipment's last_error).
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freshTarget, runCli, shopWithKey, spawnDaemon, until, type Outcome, type Scenario } from './harness.ts';

const ADMIN = 'huge-reply-scenario-admin-token';
const MiB = 1024 * 1024;
const REPLY_BYTES = 320 * MiB;
const RUNS = 4;
/** The daemon's resident memory may not pass this, MB (at rest it holds about 150-250 MB). */
const RSS_BOUND_MB = 450;

/** Resident memory of a process, MB: now (VmRSS) and its peak so far (VmHWM). */
async function memoryOf(pid: number): Promise<{ rss: number; peak: number }> {
  const status = await fs.readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
  return { rss: Math.round(kb('VmRSS') / 1024), peak: Math.round(kb('VmHWM') / 1024) };
}

/** The carrier: every tracking call answers REPLY_BYTES of JSON-looking filler, as fast as read. */
async function hugeCarrier(): Promise<{ url: string; replies: number[]; close(): void }> {
  const replies: number[] = [];
  const block = Buffer.alloc(MiB, ' ');
  const server = http.createServer((_req, res) => {
    const index = replies.push(0) - 1;
    // Every other answer announces its length; the others are chunked.
    res.writeHead(200, { 'content-type': 'application/json', ...(index % 2 === 0 ? { 'content-length': String(REPLY_BYTES) } : {}) });
    const pump = (): void => {
      while (replies[index]! < REPLY_BYTES && !res.destroyed) {
        replies[index]! += MiB;
        if (!res.write(block)) return void res.once('drain', pump);
      }
      if (!res.destroyed) res.end();
    };
    res.on('error', () => undefined);
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    replies,
    close: () => (server.closeAllConnections(), server.close()),
  };
}

export const hugeReply: Scenario = {
  name: 'huge-carrier-reply',
  async run(): Promise<Outcome> {
    const target = await freshTarget();
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'waybill-huge-'));
    const carrier = await hugeCarrier();
    const problems: string[] = [];
    const figures: Record<string, number | string> = { reply_mb: REPLY_BYTES / MiB };
    const configFile = path.join(dir, 'connectors.json');
    await fs.writeFile(
      configFile,
      JSON.stringify({
        connectors: [
          {
            name: 'giant',
            type: 'tracking-dhl',
            schedule: '0 0 1 1 *',
            enabled: true,
            options: {
              base_url: carrier.url,
              carriers: ['GIANT'],
              api_key_env: 'HUGE_DHL_KEY',
              min_interval_seconds: 0,
              concurrency: 4,
              requests_per_second: 1_000,
              rate_jitter_ms: 0,
              retries: 0,
              timeout_ms: 120_000,
            },
          },
        ],
      }),
    );
    const env = { ...target.env, WAYBILL_CONNECTORS: configFile, WAYBILL_ADMIN_TOKEN: ADMIN, HUGE_DHL_KEY: 'huge-key' };
    const shop = await shopWithKey(target);
    const mp = (await runCli(['marketplaces', 'create', '--name', 'Huge MP', '--json'], env)).json<{ pk: number }>().pk;
    const daemon = await spawnDaemon(env);
    const admin = { authorization: `Bearer ${ADMIN}` };
    let serving = true;
    try {
      const orders = `${daemon.url}/shops/${shop.shopPk}/marketplace/${mp}/orders/`;
      for (let i = 0; i < 4; i++) {
        const order = {
          order_pk: 9_000 + i,
          reference: `HUGE-${i}`,
          customer: {},
          shipping_address: {},
          shipping_cost: 0,
          items: [{ item_pk: 1, sku: 'H', quantity: 1, price: 1 }],
        };
        const intake = await fetch(orders, { method: 'POST', headers: shop.headers, body: JSON.stringify(order) });
        const ship = await fetch(`${orders}${order.order_pk}/ship/`, {
          method: 'POST',
          headers: shop.headers,
          body: JSON.stringify({ carrier: 'GIANT', tracking_code: `GIANT-${i}` }),
        });
        if (intake.status !== 201 || ship.status !== 204) throw new Error(`order ${i}: intake ${intake.status}, ship ${ship.status}`);
      }
      const pid = daemon.child.pid!;
      figures.rss_at_rest_mb = (await memoryOf(pid)).rss;

      // Clients keep using the API the whole time: each request must be answered.
      const served = { ok: 0, failed: 0, slowest_ms: 0 };
      const clients = (async () => {
        for (let n = 0; serving; n++) {
          const t = Date.now();
          const res = await (
            n % 2 === 0
              ? fetch(`${daemon.url}/shops/${shop.shopPk}/products/`, {
                  method: 'POST',
                  headers: shop.headers,
                  body: JSON.stringify({ sku: `LIVE-${n}`, name: 'Live', price: 1, stock: 1 }),
                })
              : fetch(`${daemon.url}/shops/${shop.shopPk}/products/?page_size=10`, { headers: shop.headers })
          ).then(
            (r) => r.status,
            () => 0,
          );
          if (res >= 200 && res < 300) served.ok++;
          else served.failed++;
          served.slowest_ms = Math.max(served.slowest_ms, Date.now() - t);
          await new Promise((r) => setTimeout(r, 50));
        }
      })();
      let peak = 0;
      const sampler = (async () => {
        while (serving && daemon.child.exitCode === null) {
          peak = Math.max(peak, (await memoryOf(pid).catch(() => ({ rss: 0 }))).rss);
          await new Promise((r) => setTimeout(r, 100));
        }
      })();

      for (let run = 1; run <= RUNS && daemon.child.exitCode === null; run++) {
        const queued = await fetch(`${daemon.url}/admin/api/connectors/giant/run`, { method: 'POST', headers: admin });
        if (queued.status !== 202) problems.push(`run now answered ${queued.status}`);
        await until(
          `run ${run} to finish`,
          async () =>
            daemon.child.exitCode !== null ||
            (
              await target.query<{ n: number }>(
                `select count(*)::int n from connector_runs where connector = 'giant' and finished_at is not null`,
              )
            )[0]!.n >= run,
          180_000,
          200,
        );
      }
      serving = false;
      await Promise.all([clients, sampler]);
      const alive =
        daemon.child.exitCode === null &&
        (await fetch(`${daemon.url}/healthz`).then(
          (r) => r.status === 200,
          () => false,
        ));
      const hwm = alive ? (await memoryOf(pid)).peak : 0;
      Object.assign(figures, {
        huge_replies: carrier.replies.length,
        most_sent_mb: Math.round(Math.max(0, ...carrier.replies) / MiB),
        peak_rss_mb: Math.max(peak, hwm),
        requests_ok: served.ok,
        requests_failed: served.failed,
        slowest_request_ms: served.slowest_ms,
      });
      if (!alive) problems.push(`the daemon died (exit ${daemon.child.exitCode}):\n${daemon.output().slice(-2000)}`);
      if (Math.max(peak, hwm) > RSS_BOUND_MB) problems.push(`peak RSS ${Math.max(peak, hwm)} MB > ${RSS_BOUND_MB} MB`);
      if (served.failed > 0 || served.ok < 10) problems.push(`clients: ${served.ok} answered, ${served.failed} failed`);
      // Four in flight at once in each run (the first cut does not cancel calls already sent).
      if (carrier.replies.length < 2 * RUNS) problems.push(`only ${carrier.replies.length} huge replies were asked for`);
      const runs = await target.query<{ outcome: string; error: string | null }>(
        `select outcome, error from connector_runs where connector = 'giant' order by id`,
      );
      figures.runs_failed_with_cap = runs.filter(
        (r) => r.outcome === 'failed' && r.error?.includes('is larger than 4 MiB') === true,
      ).length;
      if (runs.length !== RUNS || figures.runs_failed_with_cap !== RUNS) problems.push(`runs: ${JSON.stringify(runs).slice(0, 600)}`);
      const shipments = await target.query<{ last_error: string | null }>(`select last_error from tracking_shipments`);
      if (shipments.length === 0 || !shipments.every((s) => s.last_error?.includes('is larger than 4 MiB')))
        problems.push(`shipments: ${JSON.stringify(shipments).slice(0, 600)}`);
    } finally {
      serving = false;
      daemon.child.kill('SIGTERM');
      await daemon.exited;
      carrier.close();
      await target.close();
      await fs.rm(dir, { recursive: true, force: true });
    }
    return { pass: problems.length === 0, figures, detail: problems.join('\n') };
  },
};
