// Carrier tracking as an attacker would try it. A tracking code (or stored shipment) that could
// change the carrier URL's path (`.`, `..`, `/`, `?`, `#`, `%2e%2e`) never does: a mock carrier
// logs every path, and each must be the parcel's own. A shop cannot attach another shop's open
// parcel (409 naming the parcel, not the shop), a pushed update of a parcel reaches one shop's
// shipment only, and a connector with a shop_pk never touches another shop's shipments. A 200
// that is not JSON (an HTML page, a truncated answer) is that shipment's error, not a check.
import { createHmac } from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {
  freshTarget,
  runCli,
  shopWithKey,
  spawnDaemon,
  until,
  type Outcome,
  type Scenario,
  type ShopKey,
  type Target,
} from '../harness.ts';
import type { CheckResult } from './auth.ts';

const ADMIN = 'carrier-security-admin-token-0123456789';
const AS_SECRET = 'carrier-security-aftership-secret';
/** Codes stored on shipments (as older data may hold them) that must not leave their path segment. */
const HOSTILE = ['.', '..', '%2e%2e', '../../trackings', 'a/b', 'q?page=2', 'h#frag', '..\\..'];
const PARCEL = {
  data: {
    tracking: {
      tag: 'Delivered',
      subtag: 'Delivered_001',
      checkpoints: [
        {
          checkpoint_time: '2026-11-20T14:02:00',
          tag: 'Delivered',
          subtag: 'Delivered_001',
          message: 'DELIVERED',
          city: 'Henderson',
          state: 'NV',
          zip: '89014',
          country_iso3: 'USA',
        },
      ],
    },
  },
};
const HTTP_PARCEL = { parcel: { state: { code: 'DLV' }, history: [{ at: '2026-11-20T10:00:00Z', code: 'DLV', place: 'Lyon' }] } };

interface Carrier {
  url: string;
  paths: string[];
  close(): void;
}

/** The mock carrier: logs each path as sent; answers a delivered parcel on any path (as a list endpoint would answer something). */
async function mockCarrier(): Promise<Carrier> {
  const paths: string[] = [];
  const server = http.createServer((req, res) => {
    const url = req.url ?? '';
    paths.push(url);
    req.resume();
    if (url.includes('HTML-PAGE'))
      return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Maintenance</body></html>');
    if (url.includes('TRUNCATED'))
      return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"parcel":{"state":{"code":"DL');
    const body = url.startsWith('/as/') ? PARCEL : HTTP_PARCEL;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    paths,
    close: () => (server.closeAllConnections(), server.close()),
  };
}

const orderBody = (orderPk: number) => ({
  order_pk: orderPk,
  reference: `CS-${orderPk}`,
  customer: {},
  shipping_address: {},
  shipping_cost: 0,
  items: [{ item_pk: 1, sku: 'S', quantity: 1, price: 1 }],
});

export async function checkCarriers(target: Target): Promise<CheckResult> {
  const problems: string[] = [];
  const figures: Record<string, number> = {};
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'waybill-carriers-'));
  const carrier = await mockCarrier();
  const configFile = path.join(dir, 'connectors.json');
  const polling = { min_interval_seconds: 0, retries: 0, api_key_env: 'CS_CARRIER_KEY' };
  const env = {
    ...target.env,
    WAYBILL_CONNECTORS: configFile,
    WAYBILL_ADMIN_TOKEN: ADMIN,
    CS_CARRIER_KEY: 'cs-key',
    CS_AS_SECRET: AS_SECRET,
  };
  const a = await shopWithKey(target);
  const b = await shopWithKey(target);
  await fs.writeFile(
    configFile,
    JSON.stringify({
      connectors: [
        {
          name: 'cs-aftership',
          type: 'tracking-aftership',
          schedule: '0 0 1 1 *',
          options: { ...polling, base_url: `${carrier.url}/as`, carriers: ['CS-AS'], webhook_secret_env: 'CS_AS_SECRET' },
        },
        {
          name: 'cs-aftership-a',
          type: 'tracking-aftership',
          shop_pk: a.shopPk,
          schedule: '0 0 1 1 *',
          options: { ...polling, base_url: `${carrier.url}/as`, carriers: ['CS-AS'], webhook_secret_env: 'CS_AS_SECRET' },
        },
        {
          name: 'cs-http',
          type: 'tracking-http',
          schedule: '0 0 1 1 *',
          options: {
            ...polling,
            base_url: `${carrier.url}/http`,
            carriers: ['CS-HTTP'],
            url_template: '{base_url}/parcels/{tracking_code}/info',
            status_path: 'parcel.state.code',
            events_path: 'parcel.history',
            event_fields: { time: 'at', code: 'code', location: 'place' },
            status_map: { DLV: 'delivered' },
          },
        },
      ],
    }),
  );
  const daemon = await spawnDaemon(env);
  const admin = { authorization: `Bearer ${ADMIN}` };
  const mp = (await runCli(['marketplaces', 'create', '--name', 'CS MP', '--json'], env)).json<{ pk: number }>().pk;
  let nextOrder = 9_100;
  const ordersOf = (s: ShopKey) => `${daemon.url}/shops/${s.shopPk}/marketplace/${mp}/orders/`;
  /** An order of the shop shipped with this carrier and code; the ship's reply. */
  const ship = async (s: ShopKey, carrierName: string, code: string): Promise<{ orderPk: number; res: Response }> => {
    const orderPk = nextOrder++;
    const intake = await fetch(ordersOf(s), { method: 'POST', headers: s.headers, body: JSON.stringify(orderBody(orderPk)) });
    if (intake.status !== 201) problems.push(`order intake answered ${intake.status}`);
    const res = await fetch(`${ordersOf(s)}${orderPk}/ship/`, {
      method: 'POST',
      headers: s.headers,
      body: JSON.stringify({ carrier: carrierName, tracking_code: code }),
    });
    return { orderPk, res };
  };
  /** A shipment as older data may hold it: shipped with a harmless code, then the code written as given. */
  const stored = async (s: ShopKey, carrierName: string, code: string): Promise<number> => {
    const { orderPk, res } = await ship(s, carrierName, `CS-PLACEHOLDER-${nextOrder}`);
    if (res.status !== 204) problems.push(`ship ${carrierName}: ${res.status}`);
    await target.query(`update shipments set tracking_code = $1 where shop_pk = $2 and order_pk = $3`, [code, s.shopPk, orderPk]);
    return orderPk;
  };
  const run = async (name: string) => {
    const before = (await target.query<{ n: number }>(`select count(*)::int n from connector_runs where connector = $1`, [name]))[0]!.n;
    await fetch(`${daemon.url}/admin/api/connectors/${name}/run`, { method: 'POST', headers: admin });
    return until(
      `${name} to run`,
      async () =>
        (
          await target.query<{ outcome: string; counts: Record<string, number>; error: string | null }>(
            `select outcome, counts, error from connector_runs where connector = $1 and finished_at is not null order by id offset $2`,
            [name, before],
          )
        )[0],
    );
  };
  const trackingOf = async (s: ShopKey, orderPk: number) =>
    (
      await target.query<{ error: string | null; events: number; status: string }>(
        `select t.last_error error, (select count(*)::int from tracking_events e where e.shipment_id = sh.id) events, o.status
       from shipments sh join orders o on o.id = sh.order_id left join tracking_shipments t on t.shipment_id = sh.id
      where sh.shop_pk = $1 and sh.order_pk = $2`,
        [s.shopPk, orderPk],
      )
    )[0]!;
  const webhook = async (name: string, code: string) => {
    const body = JSON.stringify({
      event: 'tracking_update',
      event_id: `cs-${name}-${code}-${Date.now()}`,
      msg: {
        tracking_number: code,
        slug: 'cs-as',
        tag: 'Delivered',
        subtag: 'Delivered_001',
        checkpoints: [{ checkpoint_time: '2026-11-20T14:02:00', tag: 'Delivered', message: 'DELIVERED', city: 'Henderson' }],
      },
    });
    const signature = createHmac('sha256', AS_SECRET).update(body).digest('base64');
    const res = await fetch(`${daemon.url}/webhooks/carriers/${name}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'aftership-hmac-sha256': signature },
      body,
    });
    return { status: res.status, body: (await res.json()) as { shipments?: number } };
  };
  try {
    // 1. Path segments: codes of only dots are refused at ship time; stored hostile codes stay in their segment.
    let shipRefused = 0;
    for (const code of ['.', '..', '...']) {
      const { res } = await ship(a, 'CS-AS', code);
      if (res.status === 400) shipRefused++;
      else problems.push(`ship with tracking_code ${JSON.stringify(code)} answered ${res.status}, not 400`);
    }
    const hostile = new Map<number, string>();
    for (const code of HOSTILE) hostile.set(await stored(a, 'CS-AS', code), code);
    const httpHostile = new Map<number, string>();
    for (const code of HOSTILE) httpHostile.set(await stored(a, 'CS-HTTP', code), code);
    carrier.paths.length = 0;
    await run('cs-aftership');
    await run('cs-http');
    const own = (p: string) => /^\/as\/trackings\/cs-as\/[^/?#]+$/.test(p) || /^\/http\/parcels\/[^/?#]+\/info$/.test(p);
    const strayed = carrier.paths.filter((p) => !own(p) || /\/\.\.?(\/|$)/.test(p));
    for (const p of strayed) problems.push(`the carrier was called at ${p}, outside a parcel's own path`);
    let dotsRefused = 0;
    for (const [orderPk, code] of [...hostile, ...httpHostile]) {
      const t = await trackingOf(a, orderPk);
      if (code === '.' || code === '..') {
        if (t.events === 0 && t.error?.includes('path') === true && t.status !== 'delivered') dotsRefused++;
        else problems.push(`shipment with code ${JSON.stringify(code)}: ${JSON.stringify(t)} (expected an error, no events)`);
      }
    }
    Object.assign(figures, {
      dot_codes_refused_at_ship: shipRefused,
      carrier_paths: carrier.paths.length,
      carrier_paths_strayed: strayed.length,
      dot_shipments_refused: dotsRefused,
    });

    // 2. Cross-shop parcels.
    const bOrder = (await ship(b, 'CS-AS', 'CS-B-PARCEL')).orderPk;
    const claim = await ship(a, 'cs-as', 'CS-B-PARCEL');
    const claimBody = await claim.res.text();
    if (
      claim.res.status !== 409 ||
      !claimBody.includes('CS-B-PARCEL') ||
      claimBody.includes(`"shop_pk":${b.shopPk}`) ||
      claimBody.includes('Fault shop')
    ) {
      problems.push(`shop A shipping shop B's open parcel: ${claim.res.status} ${claimBody.slice(0, 300)}`);
    }
    // Older data holding B's parcel on A's shipment too: the push reaches one shipment, B's.
    const aLegacy = await stored(a, 'CS-AS', 'CS-B-PARCEL');
    const pushed = await webhook('cs-aftership', 'CS-B-PARCEL');
    const aAfter = await trackingOf(a, aLegacy);
    const bAfter = await trackingOf(b, bOrder);
    if (pushed.status !== 200 || pushed.body.shipments !== 1)
      problems.push(`AfterShip push of one parcel: ${pushed.status} ${JSON.stringify(pushed.body)} (expected one shipment)`);
    if (aAfter.events !== 0 || aAfter.status === 'delivered')
      problems.push(`shop A's shipment got shop B's parcel: ${JSON.stringify(aAfter)}`);
    if (bAfter.status !== 'delivered') problems.push(`shop B's own parcel: ${JSON.stringify(bAfter)}`);
    // A connector of shop A: a push of B's parcel touches nothing of B's.
    const bOther = (await ship(b, 'CS-AS', 'CS-B-SECOND')).orderPk;
    const scoped = await webhook('cs-aftership-a', 'CS-B-SECOND');
    const bOtherAfter = await trackingOf(b, bOther);
    if (scoped.status !== 200 || scoped.body.shipments !== 0 || bOtherAfter.events !== 0)
      problems.push(`shop A's connector and shop B's parcel: ${JSON.stringify(scoped)} ${JSON.stringify(bOtherAfter)}`);
    Object.assign(figures, { cross_shop_ship_status: claim.res.status, cross_shop_push_shipments: pushed.body.shipments ?? -1 });

    // 3. A 200 that cannot be read is that shipment's error.
    const unread = [await ship(a, 'CS-HTTP', 'HTML-PAGE'), await ship(a, 'CS-HTTP', 'TRUNCATED')];
    const httpRun = await run('cs-http');
    let unreadable = 0;
    for (const u of unread) {
      const t = await trackingOf(a, u.orderPk);
      if (t.error?.includes('not JSON') === true && t.events === 0) unreadable++;
      else problems.push(`a 200 that is not JSON: ${JSON.stringify(t)}`);
    }
    if ((httpRun.counts.checked ?? 0) !== 0)
      problems.push(
        `tracking-http counted ${httpRun.counts.checked} successful checks of unreadable answers: ${JSON.stringify(httpRun.counts)}`,
      );
    figures.unreadable_answers_as_errors = unreadable;
  } finally {
    daemon.child.kill('SIGTERM');
    await daemon.exited;
    carrier.close();
    await fs.rm(dir, { recursive: true, force: true });
  }
  return { figures, problems };
}

export const carrierSecurity: Scenario = {
  name: 'carrier-security',
  async run(): Promise<Outcome> {
    const target = await freshTarget();
    try {
      const r = await checkCarriers(target);
      return { pass: r.problems.length === 0, figures: r.figures, detail: r.problems.join('\n') };
    } finally {
      await target.close();
    }
  },
};
