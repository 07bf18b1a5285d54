// Calls waybill makes to the outside. Webhook URLs aimed at internal addresses (metadata,
// loopback in every spelling, private, link-local, IPv6 forms, credentials) are refused when
// set, by the CLI (default configuration) and the admin API (even with 127.0.0.1 allowed); a
// stored URL whose name resolves to 127.0.0.1 is refused at delivery and never connected. A
// carrier redirecting to another host never hands it the DHL-API-Key or as-api-key. These run
// on a daemon of their own, with the default configuration (no WAYBILL_WEBHOOK_ALLOW_PRIVATE).
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freshTarget, runCli, shopWithKey, spawnDaemon, until, type Target } from '../harness.ts';
import { ADMIN_TOKEN, type World } from '../fuzz/world.ts';
import type { CheckResult } from './auth.ts';

const INTERNAL = [
  'http://169.254.169.254/latest/meta-data/',
  'http://[fd00:ec2::254]/',
  'http://100.100.100.200/',
  'http://10.0.0.5/',
  'http://192.168.1.1/',
  'http://172.16.0.1/',
  'http://0.0.0.0:8080/',
  'http://[::1]/',
  'http://[::ffff:169.254.169.254]/',
  'http://[fe80::1]/',
  'http://127.0.0.2/',
  'http://localhost:8080/',
  'https://user:pass@hooks.example.com/',
];
const LOOPBACK = [
  'http://127.0.0.1:8080/',
  'http://2130706433/',
  'http://0x7f000001/',
  'http://0177.0.0.1/',
  'http://127.1/',
  'http://[::ffff:127.0.0.1]/',
];

interface Seen {
  host: string;
  path: string;
  keys: string[];
}

async function listen(
  name: string,
  seen: Seen[],
  handler: (req: http.IncomingMessage, res: http.ServerResponse) => void,
): Promise<{ url: string; close(): void }> {
  const server = http.createServer((req, res) => {
    seen.push({ host: name, path: req.url ?? '', keys: ['dhl-api-key', 'as-api-key'].filter((k) => req.headers[k] !== undefined) });
    req.resume();
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => (server.closeAllConnections(), server.close()) };
}

export async function checkOutbound(world: World, worldTarget: Target): Promise<CheckResult> {
  const problems: string[] = [];
  const figures: Record<string, number> = {};
  // Set: the CLI with the default configuration refuses every internal form, loopback included.
  let cliRefused = 0;
  for (const url of [...LOOPBACK, INTERNAL[0]!, INTERNAL[7]!, INTERNAL[12]!]) {
    const r = await runCli(['shops', 'create', '--name', 'Internal', '--webhook-url', url, '--json'], worldTarget.env);
    if (r.code === 1 && r.stderr.includes('webhook_url')) cliRefused++;
    else problems.push(`CLI shops create --webhook-url ${url}: exit ${r.code} ${r.stdout.slice(0, 200)}`);
  }
  // Set: the admin API of a daemon that allows 127.0.0.1 (its receivers) refuses everything else.
  let apiRefused = 0;
  for (const url of INTERNAL) {
    const res = await fetch(`${world.daemon.url}/admin/api/shops`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Internal', webhook_url: url }),
    });
    const body = (await res.json()) as { errors?: { pointer: string }[] };
    if (res.status === 400 && body.errors?.[0]?.pointer === '/webhook_url') apiRefused++;
    else problems.push(`admin API webhook_url ${url}: ${res.status} ${JSON.stringify(body).slice(0, 200)}`);
  }
  const stored = await worldTarget.query<{ n: number }>(`select count(*)::int n from shops where name = 'Internal'`);
  if (stored[0]!.n !== 0) problems.push(`${stored[0]!.n} shops with an internal webhook URL were stored`);
  Object.assign(figures, { webhook_set_refused_cli: cliRefused, webhook_set_refused_api: apiRefused });

  const target = await freshTarget();
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'waybill-outbound-'));
  const seen: Seen[] = [];
  const other = await listen('other', seen, (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  const carrier = await listen('carrier', seen, (_req, res) => res.writeHead(302, { location: `${other.url}/collect` }).end());
  const receiver = await listen('receiver', seen, (_req, res) => res.writeHead(204).end());
  const configFile = path.join(dir, 'connectors.json');
  const polling = { carriers: [], min_interval_seconds: 0, retries: 0, api_key_env: 'SEC_CARRIER_KEY' };
  await fs.writeFile(
    configFile,
    JSON.stringify({
      connectors: [
        {
          name: 'leaky-dhl',
          type: 'tracking-dhl',
          schedule: '0 0 1 1 *',
          options: { ...polling, base_url: `${carrier.url}/dhl`, carriers: ['SEC-DHL'] },
        },
        {
          name: 'leaky-as',
          type: 'tracking-aftership',
          schedule: '0 0 1 1 *',
          options: { ...polling, base_url: `${carrier.url}/aftership`, carriers: ['SEC-AS'] },
        },
      ],
    }),
  );
  const env = { ...target.env, WAYBILL_CONNECTORS: configFile, WAYBILL_ADMIN_TOKEN: ADMIN_TOKEN, SEC_CARRIER_KEY: 'sec-carrier-key' };
  const daemon = await spawnDaemon(env);
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
  try {
    const shop = await shopWithKey(target, ['--webhook-url', 'https://hooks.example.com/waybill']);
    const mp = (await runCli(['marketplaces', 'create', '--name', 'Sec MP', '--json'], env)).json<{ pk: number }>().pk;
    const orders = `${daemon.url}/shops/${shop.shopPk}/marketplace/${mp}/orders/`;
    for (const [i, carrierName] of ['SEC-DHL', 'SEC-AS'].entries()) {
      await fetch(orders, {
        method: 'POST',
        headers: shop.headers,
        body: JSON.stringify({
          order_pk: 7_100 + i,
          reference: `SEC-${i}`,
          customer: {},
          shipping_address: {},
          shipping_cost: 0,
          items: [{ item_pk: 1, sku: 'S', quantity: 1, price: 1 }],
        }),
      });
      const ship = await fetch(`${orders}${7_100 + i}/ship/`, {
        method: 'POST',
        headers: shop.headers,
        body: JSON.stringify({ carrier: carrierName, tracking_code: `SEC-${i}` }),
      });
      if (ship.status !== 204) problems.push(`ship ${carrierName}: ${ship.status}`);
    }
    // Redirects: each connector's run fails, the other host never sees a key.
    let redirectsRefused = 0;
    for (const name of ['leaky-dhl', 'leaky-as']) {
      await fetch(`${daemon.url}/admin/api/connectors/${name}/run`, { method: 'POST', headers: admin });
      const run = await until(
        `${name} to run`,
        async () =>
          (
            await target.query<{ outcome: string; error: string | null }>(
              `select outcome, error from connector_runs where connector = $1 and finished_at is not null`,
              [name],
            )
          )[0],
      );
      if (run.outcome === 'failed' && run.error?.includes('redirected to another origin') === true) redirectsRefused++;
      else problems.push(`${name}: ${JSON.stringify(run)}`);
    }
    const carrierSawKeys = seen.filter((s) => s.host === 'carrier' && s.keys.length === 1).length;
    const leaked = seen.filter((s) => s.host === 'other').length;
    if (carrierSawKeys !== 2 || leaked !== 0)
      problems.push(`carrier calls with a key: ${carrierSawKeys} (expected 2); calls reaching the other host: ${leaked}`);
    Object.assign(figures, { redirect_runs_failed: redirectsRefused, redirect_key_leaks: leaked });

    // Delivery: a stored URL whose name resolves to 127.0.0.1 is refused before connecting.
    await target.query(`update shops set webhook_url = $1 where pk = $2`, [
      `http://localhost:${new URL(receiver.url).port}/hook`,
      shop.shopPk,
    ]);
    const posted = await fetch(`${daemon.url}/shops/${shop.shopPk}/products/`, {
      method: 'POST',
      headers: shop.headers,
      body: JSON.stringify({ sku: 'SEC-HOOK', name: 'Hook', price: 1, stock: 1 }),
    });
    if (posted.status !== 201) problems.push(`product POST answered ${posted.status}`);
    const dead = await until('the refused delivery in the dead-letter queue', async () => {
      const jobs = (await (await fetch(`${daemon.url}/admin/api/queues/webhook.deliver.dead/jobs`, { headers: admin })).json()) as {
        error: string | null;
      }[];
      return jobs.find((j) => j.error?.includes('localhost resolves to') === true);
    });
    if (!/an internal address \((127\.0\.0\.0\/8|::\/96)/.test(dead.error!)) problems.push(`dead delivery: ${dead.error}`);
    const reached = seen.filter((s) => s.host === 'receiver').length;
    if (reached !== 0) problems.push(`the internal receiver got ${reached} requests`);
    figures.webhook_delivery_refused = reached === 0 && dead !== undefined ? 1 : 0;
  } finally {
    daemon.child.kill('SIGTERM');
    await daemon.exited;
    for (const s of [other, carrier, receiver]) s.close();
    await target.close();
    await fs.rm(dir, { recursive: true, force: true });
  }
  return { figures, problems };
}
