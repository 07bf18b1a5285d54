// Shared set-up of the tracking tests: carriers' fixtures, a shop whose orders are shipped
// through the API (carrier + tracking_code), and reading back orders and tracking as a user would.
import fs from 'node:fs';
import path from 'node:path';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import type { TestDaemon } from '../helpers/daemon.ts';

export const fixture = (adapter: string, name: string): Record<string, unknown> =>
  JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '../../connectors', adapter, 'fixtures', name), 'utf8')) as Record<
    string,
    unknown
  >;

export interface OrderJson {
  status: string;
  items: { item_pk: number; status: string }[];
  shipments: { id: number; carrier: string | null; tracking_code: string | null }[];
  history: { action: string; item_pks: number[]; from: string | null; to: string; source: string }[];
}

let nextMarketplace = 600;
let nextOrder = 7_000_000;

export interface Shop {
  shopPk: number;
  auth: { authorization: string };
  /** Intakes an order with `items` items and ships them all; returns the order_pk and its shipment id. */
  shipped(carrier: string, trackingCode: string, items?: number): Promise<{ orderPk: number; shipmentId: number }>;
  order(orderPk: number): Promise<OrderJson>;
  act(orderPk: number, action: string, body?: Record<string, unknown>): Promise<number>;
}

export async function shopClient(daemon: TestDaemon): Promise<Shop> {
  const { shopPk, auth } = await daemon.shopWithKey();
  const mp = (await daemon.services.marketplaces.create({ name: 'Marketplace', pk: nextMarketplace++ })).pk;
  const base = `/shops/${shopPk}/marketplace/${mp}/orders/`;
  const shop: Shop = {
    shopPk,
    auth,
    async shipped(carrier, trackingCode, items = 1) {
      const orderPk = nextOrder++;
      const intake = await daemon.app!.inject({
        method: 'POST',
        url: base,
        headers: auth,
        payload: {
          order_pk: orderPk,
          reference: `R-${orderPk}`,
          items: Array.from({ length: items }, (_, i) => ({ item_pk: i + 1, sku: `SKU-${i + 1}`, quantity: 1, price: 9.9 })),
        },
      });
      expect(intake.statusCode, intake.body).toBe(201);
      expect(await shop.act(orderPk, 'ship', { carrier, tracking_code: trackingCode })).toBe(204);
      const o = await shop.order(orderPk);
      return { orderPk, shipmentId: o.shipments[0]!.id };
    },
    async order(orderPk) {
      const res = await daemon.app!.inject({ url: `${base}${orderPk}/`, headers: auth });
      expect(res.statusCode, res.body).toBe(200);
      return res.json() as OrderJson;
    },
    async act(orderPk, action, body = {}) {
      const res = await daemon.app!.inject({ method: 'POST', url: `${base}${orderPk}/${action}/`, headers: auth, payload: body });
      return res.statusCode;
    },
  };
  return shop;
}

/** Runs a connector now, as `waybill connectors run` does, and returns its run record. */
export async function runConnector(daemon: TestDaemon, name: string) {
  const r = await daemon.services.connectors.execute({ name, trigger: 'manual' });
  if (r.status !== 'done') throw new Error(`connector ${name}: ${r.status}`);
  return r.run;
}

/** Third-party HTTP only through nock: real connections to anything but this machine fail. */
export function onlyNockedNetwork(): void {
  beforeAll(() => {
    nock.disableNetConnect();
    nock.enableNetConnect(/127\.0\.0\.1|localhost/);
  });
  afterEach(() => nock.cleanAll());
  afterAll(() => nock.enableNetConnect());
}
