// Shared set-up of the order tests: a daemon, a shop with a key, a marketplace, and small
// helpers that talk to the API as a client would.
import type { Response } from 'light-my-request';
import pg from 'pg';
import { expect } from 'vitest';
import type { TestDaemon } from '../helpers/daemon.ts';
import { until } from '../helpers/until.ts';

export interface OrderClient {
  shopPk: number;
  mp: number;
  auth: { authorization: string };
  keyPrefix: string;
  base: string;
  /** POSTs an order with `count` items (item_pks 1..count unless given) and returns its order_pk. */
  intake(orderPk: number, items?: number[] | number): Promise<number>;
  act(orderPk: number, action: string, body?: unknown, headers?: Record<string, string>): Promise<Response>;
  order(orderPk: number): Promise<OrderJson>;
  statuses(orderPk: number): Promise<Record<number, string>>;
}

export interface OrderJson {
  order_pk: number;
  status: string;
  items: { item_pk: number; sku: string; status: string; shipment: null | Record<string, unknown> }[];
  shipments: {
    id: number;
    item_pks: number[];
    carrier: string | null;
    tracking_code: string | null;
    delivery_time: number | null;
    comments: string | null;
  }[];
  history: {
    at: string;
    action: string;
    item_pks: number[];
    from: string | null;
    to: string | null;
    source: string;
    shipment_id: number | null;
    details: Record<string, unknown> | null;
  }[];
  [k: string]: unknown;
}

let nextMarketplace = 100;

export async function orderClient(daemon: TestDaemon, options: { webhook_url?: string } = {}): Promise<OrderClient> {
  const app = daemon.app!;
  const { shopPk, key, auth } = await daemon.shopWithKey(options.webhook_url === undefined ? {} : { webhook_url: options.webhook_url });
  const mp = (await daemon.services.marketplaces.create({ name: 'Marketplace', pk: nextMarketplace++ })).pk;
  const base = `/shops/${shopPk}/marketplace/${mp}/orders/`;
  const client: OrderClient = {
    shopPk,
    mp,
    auth,
    keyPrefix: key.slice(0, 11),
    base,
    async intake(orderPk, items = 1) {
      const pks = typeof items === 'number' ? Array.from({ length: items }, (_, i) => i + 1) : items;
      const res = await app.inject({
        method: 'POST',
        url: base,
        headers: auth,
        payload: {
          order_pk: orderPk,
          reference: `R-${orderPk}`,
          items: pks.map((item_pk) => ({ item_pk, sku: `SKU-${item_pk}`, quantity: 1, price: 10.5 })),
        },
      });
      expect(res.statusCode, res.body).toBe(201);
      return orderPk;
    },
    act: (orderPk, action, body, headers = {}) =>
      app.inject({
        method: 'POST',
        url: `${base}${orderPk}/${action}/`,
        headers: { ...auth, ...headers },
        ...(body === undefined ? {} : { payload: body as object }),
      }),
    async order(orderPk) {
      const res = await app.inject({ url: `${base}${orderPk}/`, headers: auth });
      expect(res.statusCode, res.body).toBe(200);
      return res.json() as OrderJson;
    },
    async statuses(orderPk) {
      const o = await client.order(orderPk);
      return Object.fromEntries(o.items.map((i) => [i.item_pk, i.status]));
    },
  };
  return client;
}

/** An address as read with no field known (every field present, null). */
export const NO_ADDRESS = Object.fromEntries(
  [
    'first_name',
    'last_name',
    'address',
    'street_name',
    'neighborhood',
    'reference',
    'city',
    'region',
    'postal_code',
    'country',
    'phone',
    'email',
  ].map((f) => [f, null]),
) as Record<string, string | null>;

export const items = (...pks: number[]) => ({ items: pks.map((item_pk) => ({ item_pk })) });

export function expectProblem(
  res: { statusCode: number; headers: Record<string, unknown>; json(): unknown },
  status: number,
  code: string,
): Record<string, unknown> {
  expect(res.statusCode).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = res.json() as Record<string, unknown>;
  expect(body).toMatchObject({ status, code, type: `urn:waybill:problem:${code}` });
  return body;
}

/**
 * Holds an order's row lock from another connection, as an action in flight would: actions
 * on that order wait for it before they read. `waiting(n)` resolves once n of them wait on the
 * lock; `release()` ends the hold.
 */
export async function holdOrderLock(
  daemon: TestDaemon,
  c: OrderClient,
  orderPk: number,
): Promise<{ waiting(n: number): Promise<void>; release(): Promise<void> }> {
  const holder = new pg.Client({ connectionString: daemon.database.url });
  const watcher = new pg.Client({ connectionString: daemon.database.url });
  await Promise.all([holder.connect(), watcher.connect()]);
  await holder.query('begin');
  await holder.query('select id from orders where shop_pk = $1 and marketplace_pk = $2 and order_pk = $3 for update', [
    c.shopPk,
    c.mp,
    orderPk,
  ]);
  return {
    async waiting(n) {
      await until(
        `${n} actions waiting on the order's lock`,
        async () => {
          const { rows } = await watcher.query<{ n: number }>(
            "select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
          );
          return rows[0]!.n >= n;
        },
        15_000,
        10,
      );
    },
    async release() {
      await holder.query('commit');
      await Promise.all([holder.end(), watcher.end()]);
    },
  };
}
