// A shop's receiver as the existing clients write it: a real HTTP server that gets both events
// (an order taken in and then moved, a feed finished), checks every header they check and both
// signatures (Standard Webhooks with the standardwebhooks package, X-Madkting-Signature with
// node:crypto), then fetches the resource from Location with the shop's key.
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { sql } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { useTestDaemon } from '../helpers/daemon.ts';
import { startReceiver, type Hit } from './helpers.ts';

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

const receiver = await startReceiver();
afterAll(() => receiver.close());
const daemon = await useTestDaemon();
const base = daemon.url!;

// The shop as a user makes it: the CLI prints its webhook secret once.
const created = await runCli(['shops', 'create', '--name', 'Receiving shop', '--webhook-url', `${receiver.url}/hooks`, '--json'], {
  DATABASE_URL: daemon.database.url,
  WAYBILL_WEBHOOK_ALLOW_PRIVATE: '127.0.0.1',
});
expect(created.code, created.stderr).toBe(0);
const shop = created.json<{ pk: number; webhook_secret: string }>();
const { key } = await daemon.services.shops.createKey(shop.pk);
const mp = (await daemon.services.marketplaces.create({ name: 'Marketplace', pk: 77 })).pk;
const headers = { authorization: `Token ${key}`, 'content-type': 'application/json' };
const db = daemon.connection.db;

/** What a client checks of one delivery; returns the verified body. */
function checkDelivery(hit: Hit, event: string): Record<string, unknown> {
  const h = hit.headers;
  expect(h['user-agent']).toBe(`mad-hookshot/${VERSION}`);
  expect(h['content-type']).toBe('application/json');
  expect(h['x-madkting-event']).toBe(event);
  expect(h['x-madkting-delivery']).toMatch(/^msg_[0-9a-f-]{36}$/);
  expect(h['webhook-id']).toBe(h['x-madkting-delivery']);
  // X-Madkting-Signature: hex HMAC-SHA256 of the exact body bytes with the shop's secret.
  expect(h['x-madkting-signature']).toBe(createHmac('sha256', shop.webhook_secret).update(hit.body).digest('hex'));
  // Standard Webhooks, checked by its own library (throws when wrong).
  const verified = new Webhook(shop.webhook_secret).verify(hit.body, h as Record<string, string>) as Record<string, unknown>;
  expect(Number(h['webhook-timestamp'])).toBeCloseTo(Date.now() / 1000, -2);
  // The body names the event and the resource the Location header points at.
  expect(verified).toMatchObject({ event, location: h.location, pk: expect.anything() });
  expect(h.location).toMatch(/^https?:\/\//);
  return verified;
}

describe('a shop receiving webhooks', () => {
  it('order taken in: product_feed:order:created (type order.created), Location the order, fetched with the key', async () => {
    const intake = await fetch(`${base}/shops/${shop.pk}/marketplace/${mp}/orders/`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        order_pk: 2000003841425110,
        reference: 'R-1',
        items: [
          { item_pk: 1, sku: 'A1', quantity: 1, price: 10.5 },
          { item_pk: 2, sku: 'B2', quantity: 2, price: 3 },
        ],
      }),
    });
    expect(intake.status).toBe(201);
    const orderUrl = `${base}/shops/${shop.pk}/marketplace/${mp}/orders/2000003841425110/`;
    expect(intake.headers.get('location')).toBe(orderUrl);
    await receiver.until((hits) => hits.length >= 1, 'the order.created delivery');
    const hit = receiver.hits[0]!;
    expect(hit.path).toBe('/hooks');
    expect(hit.headers.location).toBe(orderUrl);
    expect(checkDelivery(hit, 'product_feed:order:created')).toEqual({
      event: 'product_feed:order:created',
      type: 'order.created',
      location: orderUrl,
      pk: 2000003841425110,
      shop_pk: shop.pk,
      marketplace_pk: mp,
      order_pk: 2000003841425110,
      reference: 'R-1',
      status: 'pending',
      source: expect.stringMatching(/^key:wb_/),
      at: expect.any(String),
    });
    // The client's next step: the order from Location.
    const order = await fetch(hit.headers.location!, { headers });
    expect(order.status).toBe(200);
    expect(await order.json()).toMatchObject({ order_pk: 2000003841425110, reference: 'R-1', status: 'pending' });
    // Taking the same order in again changes nothing and sends nothing.
    const again = await fetch(`${base}/shops/${shop.pk}/marketplace/${mp}/orders/`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ order_pk: 2000003841425110, items: [{ item_pk: 1, sku: 'A1', quantity: 1, price: 10.5 }] }),
    });
    expect(again.status).toBe(200);
  });

  it('order moved: product_feed:order:created again (type order.status_changed), same Location, a new delivery id', async () => {
    const action = await fetch(`${base}/shops/${shop.pk}/marketplace/${mp}/orders/2000003841425110/ready_to_ship/`, {
      method: 'POST',
      headers: { authorization: headers.authorization },
    });
    expect(action.status).toBe(204);
    await receiver.until((hits) => hits.length >= 2, 'the order.status_changed delivery');
    const [first, hit] = [receiver.hits[0]!, receiver.hits[1]!];
    const body = checkDelivery(hit, 'product_feed:order:created');
    expect(body).toMatchObject({
      type: 'order.status_changed',
      location: first.headers.location,
      pk: 2000003841425110,
      action: 'ready_to_ship',
      status: 'ready_to_ship',
      previous_status: 'pending',
      items: [
        { item_pk: 1, from: 'pending', to: 'ready_to_ship' },
        { item_pk: 2, from: 'pending', to: 'ready_to_ship' },
      ],
    });
    expect(hit.headers['x-madkting-delivery']).not.toBe(first.headers['x-madkting-delivery']);
    expect((await (await fetch(hit.headers.location!, { headers })).json()) as { status: string }).toMatchObject({
      status: 'ready_to_ship',
    });
  });

  it('feed finished: product_feed:feed:finish (type feed.completed), Location the feed URL, fetched with the key', async () => {
    const post = await fetch(`${base}/shops/${shop.pk}/products/`, {
      method: 'POST',
      headers,
      body: JSON.stringify([{ sku: 'HOOK-1', name: 'Hooked', price: 5, stock: 1 }]),
    });
    expect(post.status).toBe(201);
    const feedUrl = post.headers.get('location')!;
    await receiver.until((hits) => hits.some((h) => h.headers['x-madkting-event'] === 'product_feed:feed:finish'), 'the feed delivery');
    const hit = receiver.hits.find((h) => h.headers['x-madkting-event'] === 'product_feed:feed:finish')!;
    expect(hit.headers.location).toBe(feedUrl);
    const pk = feedUrl.split('/').at(-2);
    expect(checkDelivery(hit, 'product_feed:feed:finish')).toEqual({
      event: 'product_feed:feed:finish',
      type: 'feed.completed',
      location: feedUrl,
      pk,
      shop_pk: shop.pk,
      state: 'done',
      status: 'Complete',
    });
    expect(await (await fetch(feedUrl, { headers })).json()).toMatchObject({ pk, state: 'done', status: 'Complete' });
  });

  it("order.created is queued in the intake's transaction: an intake that does not commit sends nothing", async () => {
    // A check at commit that refuses order 666 (as a lost connection or a failed constraint would).
    await sql`create function refuse_666() returns trigger language plpgsql as $$ begin raise exception 'refused at commit'; end $$`.execute(
      db,
    );
    await sql`create constraint trigger refuse_666 after insert on orders deferrable initially deferred for each row when (new.order_pk = 666) execute function refuse_666()`.execute(
      db,
    );
    const jobsFor = async (orderPk: number): Promise<number> =>
      (
        await sql<{
          n: number;
        }>`select count(*)::int as n from pgboss.job where name = 'webhook.deliver' and data->'payload'->>'order_pk' = ${String(orderPk)}`.execute(
          db,
        )
      ).rows[0]!.n;
    const take = (orderPk: number) =>
      fetch(`${base}/shops/${shop.pk}/marketplace/${mp}/orders/`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ order_pk: orderPk, items: [{ item_pk: 1, sku: 'A1', quantity: 1, price: 1 }] }),
      });
    expect((await take(666)).status).toBe(500);
    expect((await fetch(`${base}/shops/${shop.pk}/marketplace/${mp}/orders/666/`, { headers })).status).toBe(404);
    expect(await jobsFor(666)).toBe(0);
    // The same path commits for another order, and its job is there.
    expect((await take(667)).status).toBe(201);
    expect(await jobsFor(667)).toBe(1);
    // One order.created per order stored: none for 666, none for the repeated intake above.
    await receiver.until((hits) => hits.some((h) => h.json.order_pk === 667), "order 667's delivery");
    expect(receiver.hits.filter((h) => h.json.type === 'order.created').map((h) => h.json.order_pk)).toEqual([2000003841425110, 667]);
  });

  it('a body changed in transit, or another secret, fails both checks', () => {
    const hit = receiver.hits[0]!;
    const tampered = Buffer.from(hit.body.toString('utf8').replace('"R-1"', '"R-2"'));
    expect(() => new Webhook(shop.webhook_secret).verify(tampered, hit.headers as Record<string, string>)).toThrow();
    expect(createHmac('sha256', shop.webhook_secret).update(tampered).digest('hex')).not.toBe(hit.headers['x-madkting-signature']);
    const other = `whsec_${Buffer.from('another secret of 24 b!!').toString('base64')}`;
    expect(() => new Webhook(other).verify(hit.body, hit.headers as Record<string, string>)).toThrow();
    expect(createHmac('sha256', other).update(hit.body).digest('hex')).not.toBe(hit.headers['x-madkting-signature']);
  });
});
