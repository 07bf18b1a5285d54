// A receiver that answers 500, does not answer in time, or answers 200 with an error body gets
// the delivery again (same webhook-id, signed afresh) until it takes it; 410 Gone is not
// retried. Every attempt is recorded and listed by the admin API with its status, time and the
// start of the answer; the dashboard's Webhooks page shows them.
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.ts';
import { until } from '../helpers/until.ts';
import { startReceiver, type Answer } from './helpers.ts';

const ADMIN = 'webhook-retries-admin-token';
const TIMEOUT_MS = 1_000;
const BIG = 'x'.repeat(1024 * 1024);

// Per path: the first answer, then what every later attempt gets.
const script: Record<string, [Answer, Answer]> = {
  '/flaky': [{ status: 500, body: 'Internal Server Error' }, { status: 204 }],
  '/slow': ['hang', { status: 204 }],
  '/error-text': [
    { status: 200, body: '\n  ERROR: database down' },
    { status: 200, body: '{"ok":true}' },
  ],
  '/error-json': [{ status: 200, body: '{"error":"order 7 not found"}' }, { status: 202 }],
  '/null-error': [{ status: 200, body: '{"error":null,"received":true}' }, { status: 500 }],
  '/big': [{ status: 200, body: BIG }, { status: 500 }],
  '/gone': [{ status: 410, body: 'this endpoint was removed' }, { status: 204 }],
};
const receiver = await startReceiver((hit, n) => script[hit.path]![n === 0 ? 0 : 1]);
afterAll(() => receiver.close());

const daemon = await useTestDaemon({ env: { WAYBILL_ADMIN_TOKEN: ADMIN, WAYBILL_WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS) } });
const app = daemon.app!;
const bearer = { authorization: `Bearer ${ADMIN}` };
const mp = (await daemon.services.marketplaces.create({ name: 'Marketplace', pk: 88 })).pk;

interface Attempt {
  attempt: number;
  status: number | null;
  outcome: string;
  duration_ms: number;
  response_excerpt: string | null;
  error: string | null;
  url: string;
}
interface Delivery {
  delivery_id: string;
  shop_pk: number;
  event: string;
  type: string;
  pk: string;
  state: string;
  attempts: Attempt[];
}

/** A shop whose webhook is `path`, with one order taken in (one order.created delivery). */
async function orderTo(path: string): Promise<{ shopPk: number; secret: string }> {
  const { shopPk, auth } = await daemon.shopWithKey({ name: path, webhook_url: `${receiver.url}${path}` });
  const res = await app.inject({
    method: 'POST',
    url: `/shops/${shopPk}/marketplace/${mp}/orders/`,
    headers: auth,
    payload: { order_pk: 500, items: [{ item_pk: 1, sku: 'S', quantity: 1, price: 1 }] },
  });
  expect(res.statusCode).toBe(201);
  return { shopPk, secret: (await daemon.services.shops.webhookTarget(shopPk))!.secret };
}

async function settled(shopPk: number, state: string): Promise<Delivery> {
  return until(
    `shop ${shopPk}'s delivery ${state}`,
    async () => {
      const list = (await app.inject({ url: `/admin/api/webhooks/deliveries?shop=${shopPk}`, headers: bearer })).json() as Delivery[];
      return list.length === 1 && list[0]!.state === state ? list[0] : undefined;
    },
    30_000,
  );
}

/** Both attempts reached the receiver as one delivery, each signed afresh. */
function sameDeliveryTwice(path: string, secret: string): void {
  const hits = receiver.on(path);
  expect(hits).toHaveLength(2);
  expect(hits[1]!.headers['webhook-id']).toBe(hits[0]!.headers['webhook-id']);
  expect(hits[1]!.headers['x-madkting-delivery']).toBe(hits[0]!.headers['x-madkting-delivery']);
  expect(hits[1]!.body.equals(hits[0]!.body)).toBe(true);
  for (const h of hits) expect(() => new Webhook(secret).verify(h.body, h.headers as Record<string, string>)).not.toThrow();
}

describe('retries with backoff', () => {
  it('a 500 is retried; both attempts are recorded with their status and answer', async () => {
    const { shopPk, secret } = await orderTo('/flaky');
    const d = await settled(shopPk, 'delivered');
    expect(d).toMatchObject({ shop_pk: shopPk, event: 'product_feed:order:created', type: 'order.created', pk: '500' });
    expect(d.attempts.map((a) => [a.attempt, a.status, a.outcome, a.response_excerpt])).toEqual([
      [1, 500, 'failed', 'Internal Server Error'],
      [2, 204, 'delivered', null],
    ]);
    expect(d.attempts[0]!.url).toBe(`${receiver.url}/flaky`);
    sameDeliveryTwice('/flaky', secret);
  });

  it('no answer within WAYBILL_WEBHOOK_TIMEOUT_MS is retried', async () => {
    const { shopPk, secret } = await orderTo('/slow');
    const d = await settled(shopPk, 'delivered');
    expect(d.attempts.map((a) => [a.status, a.outcome, a.error])).toEqual([
      [null, 'failed', `gave no answer within ${TIMEOUT_MS} ms`],
      [204, 'delivered', null],
    ]);
    expect(d.attempts[0]!.duration_ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
    sameDeliveryTwice('/slow', secret);
  });

  it('a 200 whose body starts with "error" (text or an {"error": ...} object) is retried; {"error": null} is not an error', async () => {
    const text = await orderTo('/error-text');
    const json = await orderTo('/error-json');
    const nullError = await orderTo('/null-error');
    const a = await settled(text.shopPk, 'delivered');
    expect(a.attempts.map((x) => [x.status, x.outcome, x.response_excerpt, x.error])).toEqual([
      [200, 'failed', '\n  ERROR: database down', 'answered 200 with an error body'],
      [200, 'delivered', '{"ok":true}', null],
    ]);
    sameDeliveryTwice('/error-text', text.secret);
    const b = await settled(json.shopPk, 'delivered');
    expect(b.attempts.map((x) => [x.status, x.outcome, x.response_excerpt])).toEqual([
      [200, 'failed', '{"error":"order 7 not found"}'],
      [202, 'delivered', null],
    ]);
    const c = await settled(nullError.shopPk, 'delivered');
    expect(c.attempts.map((x) => [x.status, x.outcome])).toEqual([[200, 'delivered']]);
    expect(receiver.on('/null-error')).toHaveLength(1);
  });

  it('a huge 2xx answer is delivered: only its start is read, 1,000 characters kept', async () => {
    const { shopPk } = await orderTo('/big');
    const d = await settled(shopPk, 'delivered');
    expect(d.attempts).toHaveLength(1);
    expect(d.attempts[0]!.response_excerpt).toBe('x'.repeat(1000));
  });

  it('410 Gone is not retried: refused, the job dead-lettered, the receiver asked once', async () => {
    const { shopPk } = await orderTo('/gone');
    const d = await settled(shopPk, 'refused');
    expect(d.attempts.map((x) => [x.status, x.outcome, x.response_excerpt])).toEqual([[410, 'refused', 'this endpoint was removed']]);
    const dead = await until('the dead job', async () => {
      const jobs = (await app.inject({ url: '/admin/api/queues/webhook.deliver.dead/jobs', headers: bearer })).json() as {
        data: { messageId: string };
        error: string;
      }[];
      return jobs.find((j) => j.data.messageId === d.delivery_id);
    });
    expect(dead.error).toBe(`webhook ${receiver.url}/gone answered 410; not retried`);
    expect(receiver.on('/gone')).toHaveLength(1);
  });
});

describe('the record', () => {
  it('is listed and filtered by the admin API, one delivery by its id, and shown on the Webhooks page', async () => {
    const all = (await app.inject({ url: '/admin/api/webhooks/deliveries?limit=200', headers: bearer })).json() as Delivery[];
    expect(all.length).toBe(7);
    const refused = (await app.inject({ url: '/admin/api/webhooks/deliveries?state=refused', headers: bearer })).json() as Delivery[];
    expect(refused.map((d) => d.state)).toEqual(['refused']);
    const byEvent = (
      await app.inject({ url: '/admin/api/webhooks/deliveries?event=order.created&pk=500', headers: bearer })
    ).json() as Delivery[];
    expect(byEvent).toHaveLength(7);
    expect((await app.inject({ url: '/admin/api/webhooks/deliveries?event=feed.completed', headers: bearer })).json()).toEqual([]);
    const one = await app.inject({ url: `/admin/api/webhooks/deliveries/${refused[0]!.delivery_id}`, headers: bearer });
    expect(one.statusCode).toBe(200);
    expect(one.json()).toEqual(refused[0]);
    expect((await app.inject({ url: '/admin/api/webhooks/deliveries/msg_nope', headers: bearer })).statusCode).toBe(404);
    expect((await app.inject({ url: '/admin/api/webhooks/deliveries' })).statusCode).toBe(401);

    const page = await app.inject({ url: `/admin/webhooks?state=failing&shop=`, headers: bearer });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('No deliveries yet');
    const html = (await app.inject({ url: '/admin/webhooks', headers: bearer })).body;
    for (const d of all) expect(html).toContain(`data-delivery="${d.delivery_id}"`);
    expect(html).toContain('gave no answer within 1000 ms');
    expect(html).toContain('ERROR: database down');
  });
});
