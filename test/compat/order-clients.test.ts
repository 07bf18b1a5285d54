// The flow the existing clients (the PHP SDK, the Magento 2 module) follow for an order, over
// real HTTP: the webhook arrives, the order is fetched from its Location, read as they read it,
// marked ready to ship with no body, shipped, its label requested and opened without a token
// (as a browser would), and what the shop's system did is posted as a module integration.
import { createHmac } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.ts';
import { startReceiver } from '../webhooks/helpers.ts';

const receiver = await startReceiver();
afterAll(() => receiver.close());
const daemon = await useTestDaemon();
const base = daemon.url!;
const { shopPk, auth } = await daemon.shopWithKey({ name: 'Magento shop', webhook_url: `${receiver.url}/madkting/webhook` });
const { secret } = (await daemon.services.shops.webhookTarget(shopPk))!;
const mp = (await daemon.services.marketplaces.create({ name: 'Marketplace', pk: 1500 })).pk;
const json = { ...auth, accept: 'application/json', 'content-type': 'application/json' };

interface ClientOrder {
  pk: number;
  reference: string;
  shop_pk: number;
  marketplace_pk: number;
  ff_type: string;
  created_at: string;
  shipping_cost: number;
  payment_method: string;
  customer: { email: string; first_name: string; last_name: string };
  shipping_address: Record<string, string | null>;
  billing_address: Record<string, string | null> | null;
  tags: string[];
  actions: string[];
  items: {
    pk: number;
    item_pk: number;
    sku: string;
    quantity: number;
    price: number;
    ff_type: string;
    status: string;
    carrier: string | null;
    tracking_code: string | null;
  }[];
  progress: { name: string; status: string }[];
  history: { action: string; details: Record<string, unknown> | null }[];
}

/** The order's status as a client computes it: the last step done, canceled first. */
const statusOf = (o: ClientOrder): string => {
  const done = new Set(o.progress.filter((p) => p.status === 'done').map((p) => p.name));
  if (done.has('canceled')) return 'canceled';
  return ['refunded', 'failed', 'delivered', 'shipped', 'ready_to_ship', 'paid'].find((s) => done.has(s)) ?? 'pending';
};

describe('an order as the clients handle it', () => {
  it('webhook -> fetch Location -> ready_to_ship (no body) -> ship -> label opened without a token -> module integration', async () => {
    // The marketplace side takes the order in.
    const intake = await fetch(`${base}/shops/${shopPk}/marketplace/${mp}/orders/`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({
        order_pk: 2000003841425110,
        reference: '2000003841425110',
        created_at: '2026-11-23T10:15:00',
        payment_method: 'mercadopago',
        shipping_cost: 120,
        customer: { email: 'buyer@example.com', first_name: 'Juana', last_name: 'Pérez' },
        shipping_address: {
          first_name: 'Juana',
          last_name: 'Pérez',
          address: 'Av. Reforma 222',
          neighborhood: 'Juárez',
          city: 'CDMX',
          region: 'CDMX',
          postal_code: '06600',
          country: 'MX',
          phone: '5512345678',
        },
        tags: ['same_day'],
        items: [
          { item_pk: 1, sku: 'MUG-BLUE', quantity: 2, price: 199 },
          { item_pk: 2, sku: 'TEE-L', quantity: 1, price: 349 },
        ],
      }),
    });
    expect(intake.status).toBe(201);

    // 1. The webhook arrives; the client checks the event and the signature, and takes Location.
    await receiver.until((hits) => hits.length >= 1, 'the order webhook');
    const hook = receiver.hits[0]!;
    expect(hook.headers['x-madkting-event']).toBe('product_feed:order:created');
    expect(hook.headers['x-madkting-signature']).toBe(createHmac('sha256', secret).update(hook.body).digest('hex'));
    const location = hook.headers.location as string;
    expect(location).toBe(`${base}/shops/${shopPk}/marketplace/${mp}/orders/2000003841425110/`);

    // 2. The order is fetched from Location and read as the clients read it.
    const fetched = await fetch(location, { headers: { ...auth, accept: 'application/json' } });
    expect(fetched.status).toBe(200);
    const order = (await fetched.json()) as ClientOrder;
    expect(order).toMatchObject({
      pk: 2000003841425110,
      reference: '2000003841425110',
      shop_pk: shopPk,
      marketplace_pk: mp,
      ff_type: 'seller',
      shipping_cost: 120,
      payment_method: 'mercadopago',
      customer: { email: 'buyer@example.com', first_name: 'Juana', last_name: 'Pérez' },
      billing_address: null,
      tags: ['same_day'],
      actions: ['set_ready_to_ship'],
    });
    expect(order.created_at).toMatch(/^2026-11-23T10:15:00/);
    expect(order.shipping_address).toMatchObject({ address: 'Av. Reforma 222', postal_code: '06600', street_name: null });
    expect(order.items.map((i) => [i.pk, i.sku, i.quantity, i.price, i.ff_type, i.status])).toEqual([
      [1, 'MUG-BLUE', 2, 199, 'seller', 'pending'],
      [2, 'TEE-L', 1, 349, 'seller', 'pending'],
    ]);
    expect(statusOf(order)).toBe('paid');

    // 3. The shop created the order in its own system: ready to ship, with no body at all.
    const ready = await fetch(`${location}ready_to_ship/`, { method: 'POST', headers: { ...auth, accept: 'application/json' } });
    expect([ready.status, ready.headers.get('allow'), await ready.text()]).toEqual([204, 'POST, OPTIONS', '']);
    const shipped = await fetch(`${location}ship/`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ carrier: 'Estafeta', tracking_code: '8055241528464720099314' }),
    });
    expect(shipped.status).toBe(204);
    const afterShip = (await (await fetch(location, { headers: auth })).json()) as ClientOrder;
    expect(statusOf(afterShip)).toBe('shipped');
    expect(afterShip.actions).toEqual(['print_delivery_label']);
    expect(afterShip.items.every((i) => i.carrier === 'Estafeta' && i.tracking_code === '8055241528464720099314')).toBe(true);

    // 4. The label: requested with the key, then opened from Location by a browser, without it.
    const label = await fetch(`${location}label/`, { method: 'POST', headers: { ...auth, accept: 'application/pdf' } });
    expect(label.status).toBe(201);
    const pdf = Buffer.from(await label.arrayBuffer());
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    const link = label.headers.get('location')!;
    expect(link.startsWith(`${location}label/?`)).toBe(true);
    const opened = await fetch(link);
    expect([opened.status, opened.headers.get('content-type')]).toEqual([200, 'application/pdf']);
    expect(Buffer.from(await opened.arrayBuffer()).equals(pdf)).toBe(true);

    // 5. What the shop's system did, posted against the order; it shows in the order.
    const mi = await fetch(`${location}module-integrations/`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ module_name: 'magento2', status: 'success', message: 'Order created', reference: '000000042', type: 'order' }),
    });
    expect(mi.status).toBe(201);
    const final = (await (await fetch(location, { headers: auth })).json()) as ClientOrder & { module_integrations: unknown[] };
    expect(final.module_integrations).toMatchObject([
      { module_name: 'magento2', status: 'success', reference: '000000042', type: 'order' },
    ]);
    expect(final.history.map((h) => h.action)).toEqual(['created', 'ready_to_ship', 'ship', 'module_integration']);

    // Each status change came as a webhook with the same Location.
    await receiver.until((hits) => hits.length >= 3, 'the two status-change webhooks');
    expect(receiver.hits.map((h) => h.headers.location)).toEqual([location, location, location]);
  });
});
