// The data the fuzzer aims at: two shops with keys, a marketplace, products with variations
// and images, orders, feeds, jobs and connectors, so that valid paths exist for every operation.
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { LOCAL_WEBHOOKS, runCli, shopWithKey, spawnDaemon, until, type DaemonProcess, type ShopKey, type Target } from '../harness.ts';

export const ADMIN_TOKEN = 'fuzz-admin-token-0123456789abcdef';
export const WEBHOOK_SECRET = 'whsec_ZnV6ei13ZWJob29rLXNlY3JldC0wMTIzNDU2Nzg5';
export const AFTERSHIP_SECRET = 'fuzz-aftership-webhook-secret';
/** Module-integration records seeded (the last MODULE_RESERVE for requests that are not valid). */
export const MODULE_RECORDS = 336;
export const MODULE_RESERVE = 16;

export interface World {
  daemon: DaemonProcess;
  shop: ShopKey;
  other: ShopKey;
  /** A key of the other shop that admin "revoke" may hit without locking the fuzzer out. */
  victimPrefix: string;
  mp: number;
  /** Real ids by path parameter name (the shop's own first). */
  ids: Record<string, (string | number)[]>;
  /** The other shop's seed feed (in ids.feed too). */
  otherFeed: string;
  /** The first shop's own products (ids.product also holds two of the other shop's). */
  ownProducts: number[];
  /** [queue, job id] pairs that exist: a dead job, one waiting for its retry, done ones. */
  jobs: [string, string][];
  /** Ids of the dead jobs, and of the waiting ones, among `jobs`. */
  deadJobs: string[];
  waitingJobs: string[];
  /** [product, variation] pairs that exist. */
  variations: [number, number][];
  /** [mp, order] pairs of the shop, and their item pks. */
  orders: { order: number; items: number[] }[];
  /** By order action: the order only that action's valid requests use (not in ids.order). */
  actionOrders: Record<string, { order: number; items: number[] }>;
  /** [product, image] pairs of the shop's own products, and [product, variation, image] of their variations. */
  images: [number, number][];
  variationImages: [number, number, number][];
  /** An order with module-integration records (their ids) for the valid requests of DELETE module-integrations/{id}. */
  modules: { order: number; ids: number[] };
  /** The signed query of the label of actionOrders.label, by format (from POST .../label/). */
  labelLinks: Record<'pdf' | 'zpl', string>;
  dir: string;
  /** Env of a CLI command that sees the same connectors as the daemon. */
  cliEnv: Record<string, string>;
  stop(): Promise<void>;
}

interface StoredProduct {
  pk: number;
  variations: { pk: number; images: { pk: number }[] }[];
  images: { pk: number }[];
}

export async function buildWorld(target: Target, env: Record<string, string> = {}): Promise<World> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'waybill-fuzz-'));
  const inbox = path.join(dir, 'inbox');
  await fs.mkdir(inbox);
  // The shops' webhook receiver: the first shop's answers 503 (its deliveries wait to be retried,
  // so a job can be cancelled), the other's 410 Gone (refused for good: a dead job to retry).
  const receiver = http.createServer((req, res) => {
    res.statusCode = req.url?.startsWith('/refuse') ? 410 : 503;
    res.end();
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const hooks = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  const shop = await shopWithKey(target, ['--webhook-url', `${hooks}/later`], LOCAL_WEBHOOKS);
  const other = await shopWithKey(target, ['--webhook-url', `${hooks}/refuse`], LOCAL_WEBHOOKS);
  const victim = await runCli(['keys', 'create', '--shop', String(other.shopPk), '--json'], target.env);
  const victimPrefix = victim.json<{ prefix: string }>().prefix;
  const mp = (await runCli(['marketplaces', 'create', '--name', 'Fuzz MP', '--json'], target.env)).json<{ pk: number }>().pk;
  const configFile = path.join(dir, 'connectors.json');
  await fs.writeFile(
    configFile,
    JSON.stringify({
      connectors: [
        { name: 'pim', type: 'catalog-webhook', shop_pk: shop.shopPk, enabled: true, options: { secret_env: 'FUZZ_PIM_SECRET' } },
        {
          name: 'erp-main',
          type: 'catalog-file',
          shop_pk: shop.shopPk,
          schedule: '0 0 1 1 *',
          enabled: true,
          options: { inbox, format: 'csv', settle_ms: 0 },
        },
        // Webhooks only (no API key): its scheduled run would fail, so it never runs (1 January).
        {
          name: 'parcels',
          type: 'tracking-aftership',
          schedule: '0 0 1 1 *',
          enabled: true,
          options: { base_url: 'http://127.0.0.1:9', carriers: ['DHL', 'UPS'], webhook_secret_env: 'FUZZ_AS_SECRET' },
        },
      ],
    }),
  );
  const cliEnv = {
    ...target.env,
    ...LOCAL_WEBHOOKS,
    WAYBILL_CONNECTORS: configFile,
    FUZZ_PIM_SECRET: WEBHOOK_SECRET,
    FUZZ_AS_SECRET: AFTERSHIP_SECRET,
  };
  const daemon = await spawnDaemon({ ...cliEnv, WAYBILL_ADMIN_TOKEN: ADMIN_TOKEN, LOG_LEVEL: 'warn', ...env });
  const api = async (p: string, init: RequestInit = {}, key: ShopKey = shop): Promise<Response> =>
    fetch(`${daemon.url}${p}`, { ...init, headers: { ...key.headers, ...(init.headers as Record<string, string>) } });

  // Skus and names carry the shop's pk, so a reply can be searched for another shop's data.
  const products = (pk: number) =>
    Array.from({ length: 6 }, (_, i) => ({
      sku: `FZ${pk}-${i}`,
      name: `Shop ${pk} product ${i}`,
      price: 10 + i,
      stock: 5,
      images: [`https://img.example.com/fz-${i}-a.jpg`, { url: `https://img.example.com/fz-${i}-b.jpg` }],
      variations: [
        { sku: `FZ${pk}-${i}-S`, size: 'S', images: [`https://img.example.com/fz-${i}-a.jpg`] },
        { sku: `FZ${pk}-${i}-M`, size: 'M' },
      ],
    }));
  const feeds: string[] = [];
  for (const key of [shop, other]) {
    const r = await api(`/shops/${key.shopPk}/products/`, { method: 'POST', body: JSON.stringify(products(key.shopPk)) }, key);
    if (r.status !== 201) throw new Error(`seeding products answered ${r.status}: ${await r.text()}`);
    feeds.push(((await r.json()) as { pk: string }).pk);
  }
  for (const [i, key] of [shop, other].entries()) {
    await until('the seed feeds to finish', async () => {
      const f = (await (await api(`/feeds/${feeds[i]}/`, {}, key)).json()) as { state: string };
      return f.state === 'done' || f.state === 'failed';
    });
  }
  const list = { results: (await (await api(`/shops/${shop.shopPk}/products/?page_size=100`)).json()) as StoredProduct[] };
  const otherList = { results: (await (await api(`/shops/${other.shopPk}/products/?page_size=100`, {}, other)).json()) as StoredProduct[] };
  const variations = list.results.flatMap((p) => p.variations.map((v) => [p.pk, v.pk] as [number, number]));

  const orders: World['orders'] = [];
  for (let i = 0; i < 8; i++) {
    const order = {
      order_pk: 3_000_000_000 + i,
      reference: `REF${shop.shopPk}-${i}`,
      customer: { name: `Customer of shop ${shop.shopPk}` },
      shipping_address: {},
      shipping_cost: 1,
      items: [
        { item_pk: 10 * i + 1, sku: `FZ${shop.shopPk}-0`, quantity: 1, price: 10 },
        { item_pk: 10 * i + 2, sku: `FZ${shop.shopPk}-1`, quantity: 2, price: 3 },
      ],
    };
    const r = await api(`/shops/${shop.shopPk}/marketplace/${mp}/orders/`, { method: 'POST', body: JSON.stringify(order) });
    if (r.status !== 201) throw new Error(`seeding orders answered ${r.status}: ${await r.text()}`);
    orders.push({ order: order.order_pk, items: order.items.map((x) => x.item_pk) });
  }
  // One order per action for the valid requests of that action alone, moved first to a state
  // the action moves from and stays in when repeated (returned: shipped, then delivered).
  const actionOrders: World['actionOrders'] = {};
  // `no_delivered` is not_delivered under the name existing clients use; the label's order is
  // shipped with a carrier and a tracking code to an address (what a label needs).
  const before: Record<string, string[]> = {
    delivered: ['ship'],
    not_delivered: ['ship'],
    no_delivered: ['ship'],
    returned: ['ship', 'delivered'],
    label: ['ship'],
  };
  const orderBase = (order: number): string => `/shops/${shop.shopPk}/marketplace/${mp}/orders/${order}/`;
  for (const [i, action] of [
    'pending',
    'ready_to_ship',
    'packed_by_marketplace',
    'ship',
    'delivered',
    'not_delivered',
    'returned',
    'cancel',
    'no_delivered',
    'label',
  ].entries()) {
    const address =
      action === 'label'
        ? { first_name: 'Fuzz', last_name: 'Customer', address: '1 Label Street', city: 'Madrid', postal_code: '28001', country: 'ES' }
        : {};
    const order = {
      order_pk: 3_000_000_100 + i,
      reference: `REF${shop.shopPk}-A${i}`,
      customer: { name: `Customer of shop ${shop.shopPk}` },
      shipping_address: address,
      shipping_cost: 1,
      items: [{ item_pk: 1000 + 10 * i + 1, sku: `FZ${shop.shopPk}-0`, quantity: 1, price: 10 }],
    };
    const r = await api(`/shops/${shop.shopPk}/marketplace/${mp}/orders/`, { method: 'POST', body: JSON.stringify(order) });
    if (r.status !== 201) throw new Error(`seeding orders answered ${r.status}: ${await r.text()}`);
    for (const step of before[action] ?? []) {
      const body = action === 'label' ? { carrier: 'DHL', tracking_code: `JD${order.order_pk}` } : {};
      const moved = await api(`${orderBase(order.order_pk)}${step}/`, { method: 'POST', body: JSON.stringify(body) });
      if (moved.status >= 300) throw new Error(`moving an order to ${step} answered ${moved.status}: ${await moved.text()}`);
    }
    actionOrders[action] = { order: order.order_pk, items: order.items.map((x) => x.item_pk) };
  }
  const labelLinks = {} as World['labelLinks'];
  for (const format of ['pdf', 'zpl'] as const) {
    const r = await api(`${orderBase(actionOrders.label!.order)}label/`, { method: 'POST', headers: { accept: `application/${format}` } });
    const location = r.headers.get('location') ?? '';
    if (r.status !== 201 || !location.includes('?')) throw new Error(`the seed label answered ${r.status}: ${await r.text()}`);
    labelLinks[format] = location.slice(location.indexOf('?') + 1);
  }
  // Records for DELETE module-integrations/{id}: one for each of its valid requests in a run of 20,000, so
  // that none deletes what another valid one did (see requests.ts), and a few for the others.
  const modules = { order: orders[0]!.order, ids: [] as number[] };
  for (let batch = 0; batch < MODULE_RECORDS / 16; batch++) {
    modules.ids.push(
      ...(await Promise.all(
        Array.from({ length: 16 }, async (_, i) => {
          const r = await api(`${orderBase(modules.order)}module-integrations/`, {
            method: 'POST',
            body: JSON.stringify({ module_name: 'fuzz-seed', type: `t${16 * batch + i}` }),
          });
          if (r.status !== 201) throw new Error(`seeding a module integration answered ${r.status}: ${await r.text()}`);
          return ((await r.json()) as { id: number }).id;
        }),
      )),
    );
  }
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
  const queues = (await (await fetch(`${daemon.url}/admin/api/queues`, { headers: admin })).json()) as { name: string }[];
  const jobsOf = async (queue: string, state = ''): Promise<string[]> =>
    ((await (await fetch(`${daemon.url}/admin/api/queues/${queue}/jobs${state}`, { headers: admin })).json()) as { id: string }[]).map(
      (j) => j.id,
    );
  const dead = await until(
    'a dead webhook delivery',
    async () => {
      const ids = await jobsOf('webhook.deliver.dead');
      return ids.length > 0 ? ids : null;
    },
    60_000,
    250,
  );
  const waiting = await until(
    'a webhook delivery waiting for its retry',
    async () => {
      const ids = await jobsOf('webhook.deliver', '?state=retry');
      return ids.length > 0 ? ids : null;
    },
    60_000,
    250,
  );
  // Webhook deliveries (their attempts recorded): the refused ones, and those being retried.
  const deliveries = (
    (await (await fetch(`${daemon.url}/admin/api/webhooks/deliveries?limit=20`, { headers: admin })).json()) as { delivery_id: string }[]
  ).map((d) => d.delivery_id);
  const jobs: [string, string][] = [
    ...dead.map((id) => ['webhook.deliver.dead', id] as [string, string]),
    ...waiting.map((id) => ['webhook.deliver', id] as [string, string]),
    ...(await jobsOf('feed.process')).slice(0, 5).map((id) => ['feed.process', id] as [string, string]),
  ];

  const ids: World['ids'] = {
    shop: [shop.shopPk, shop.shopPk, shop.shopPk, other.shopPk],
    mp: [mp],
    order: orders.map((o) => o.order),
    product: [...list.results.map((p) => p.pk), ...otherList.results.slice(0, 2).map((p) => p.pk)],
    variation: variations.map(([, v]) => v),
    image: list.results.flatMap((p) => p.images.map((im) => im.pk)),
    feed: feeds,
    queue: queues.map((q) => q.name),
    id: jobs.map(([, id]) => id),
    prefix: [victimPrefix],
    delivery: deliveries,
    name: ['pim', 'erp-main'],
    carrierHook: ['parcels', 'parcels', 'parcels', 'pim'],
    // Disabling the webhook connector would make its pushes answer 503 for the rest of the run.
    disable: ['erp-main'],
  };
  return {
    daemon,
    shop,
    other,
    victimPrefix,
    mp,
    ids,
    jobs,
    deadJobs: dead,
    waitingJobs: waiting,
    otherFeed: feeds[1]!,
    variations,
    orders,
    actionOrders,
    dir,
    cliEnv,
    ownProducts: list.results.map((p) => p.pk),
    images: list.results.flatMap((p) => p.images.map((im) => [p.pk, im.pk] as [number, number])),
    variationImages: list.results.flatMap((p) =>
      p.variations.flatMap((v) => v.images.map((im) => [p.pk, v.pk, im.pk] as [number, number, number])),
    ),
    modules,
    labelLinks,
    async stop() {
      daemon.child.kill('SIGTERM');
      await daemon.exited;
      receiver.close();
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}
