// catalog-webhook: POST /connectors/{name}/webhook signed per Standard Webhooks. Signature,
// replay (timestamp outside the tolerance) and duplicate (same webhook-id) cases.
import { describe, expect, it } from 'vitest';
import { signedHeaders } from '../../src/webhooks/signature.ts';
import { useTestDaemon } from '../helpers/daemon.ts';
import { connectorsFile, tempDir } from '../helpers/connectors-file.ts';
import { until } from '../helpers/until.ts';

const SECRET = `whsec_${Buffer.from('pim-test-secret-0123456789').toString('base64')}`;
process.env.WB_TEST_PIM_SECRET = SECRET;
const daemon = await useTestDaemon({
  env: {
    WAYBILL_CONNECTORS: connectorsFile([
      { name: 'pim', type: 'catalog-webhook', shop_pk: 1, options: { secret_env: 'WB_TEST_PIM_SECRET' } },
      { name: 'files', type: 'catalog-file', shop_pk: 1, options: { inbox: tempDir(), format: 'csv' } },
    ]),
  },
});
const { auth } = await daemon.shopWithKey();
const app = daemon.app!;
let seq = 0;

const post = (body: string, headers: Record<string, string>, name = 'pim') =>
  app.inject({
    method: 'POST',
    url: `/connectors/${name}/webhook`,
    payload: body,
    headers: { 'content-type': 'application/json', ...headers },
  });
const signed = (body: string, id = `msg_${++seq}`, now = Date.now(), secret = SECRET): Record<string, string> => ({
  ...signedHeaders(secret, id, body, now),
});
const products = (sku: string, price = 10) => JSON.stringify([{ sku, name: `Product ${sku}`, price, stock: 1 }]);

describe('signature', () => {
  it('accepts a signed delivery: 202 with the feed Location; the products arrive', async () => {
    const body = products('W-1');
    const res = await post(body, signed(body));
    expect(res.statusCode).toBe(202);
    const location = res.headers.location as string;
    expect(location).toMatch(/^http:\/\/localhost:80\/feeds\/[0-9a-f-]{36}\/$/);
    expect(res.headers.allow).toBe('POST, OPTIONS');
    const feed = res.json() as { pk: string; url: string };
    expect(feed).toMatchObject({
      url: location,
      shop_pk: 1,
      type: 'product_create',
      source: 'connector:pim',
      status: 'Wait',
      counts: { total: 1 },
    });
    const path = new URL(location).pathname;
    await until(
      'the feed',
      async () => ((await app.inject({ url: path, headers: auth })).json() as { state: string }).state === 'done',
      20_000,
    );
    const list = (await app.inject({ url: '/shops/1/products/?sku=W-1', headers: auth })).json() as { sku: string; price: number }[];
    expect(list).toMatchObject([{ sku: 'W-1', price: 10 }]);
    // The delivery is a run of the connector, with its feed.
    const [run] = await daemon.services.connectors.runs('pim');
    expect(run).toMatchObject({ trigger: 'webhook', outcome: 'succeeded', feed_pks: [feed.pk], counts: { products_sent: 1 } });
  });

  it('401 for a wrong signature, a wrong secret, or missing headers', async () => {
    const body = products('W-2');
    const h = signed(body);
    const tampered = await post(products('W-2', 0), h);
    expect(tampered.statusCode).toBe(401);
    expect(tampered.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(tampered.json()).toMatchObject({
      status: 401,
      code: 'invalid_signature',
      detail: 'The webhook signature was refused: signature does not match.',
    });
    expect((await post(body, signed(body, 'msg_x', Date.now(), 'whsec_d3Jvbmc='))).statusCode).toBe(401);
    const missing = await post(body, { 'webhook-id': 'msg_y' });
    expect(missing.statusCode).toBe(401);
    expect(missing.json().detail).toBe('The webhook signature was refused: missing webhook-id, webhook-timestamp or webhook-signature.');
  });

  it('401 for a replay: a genuine signature with a timestamp outside 5 minutes', async () => {
    const body = products('W-3');
    const old = await post(body, signed(body, 'msg_old', Date.now() - 6 * 60_000));
    expect(old.statusCode).toBe(401);
    expect(old.json().detail).toBe('The webhook signature was refused: webhook-timestamp is outside the tolerance.');
    const future = await post(body, signed(body, 'msg_future', Date.now() + 6 * 60_000));
    expect(future.statusCode).toBe(401);
  });
});

describe('duplicates', () => {
  it('the same webhook-id again gets the first reply and creates no second feed', async () => {
    const body = products('W-4');
    const h = signed(body, 'msg_dup');
    const first = await post(body, h);
    expect(first.statusCode).toBe(202);
    // A retry by the sender, re-signed a little later: same id.
    const again = await post(body, signed(body, 'msg_dup', Date.now() + 1_000));
    expect(again.statusCode).toBe(202);
    expect(again.headers.location).toBe(first.headers.location);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    const runs = (await daemon.services.connectors.runs('pim')).filter((r) => r.feed_pks.includes((first.json() as { pk: string }).pk));
    expect(runs).toHaveLength(1);
  });

  it('five copies delivered at once all get the first reply (none a 409), one feed', async () => {
    const body = products('W-5');
    const h = signed(body, 'msg_dup_parallel');
    const replies = await Promise.all(Array.from({ length: 5 }, () => post(body, h)));
    expect(replies.map((r) => r.statusCode)).toEqual([202, 202, 202, 202, 202]);
    expect(new Set(replies.map((r) => r.headers.location)).size).toBe(1);
    const pk = (replies[0]!.json() as { pk: string }).pk;
    const runs = (await daemon.services.connectors.runs('pim')).filter((r) => r.feed_pks.includes(pk));
    expect(runs).toHaveLength(1);
  });

  it('a refused body is not remembered: the fixed delivery with the same id is applied', async () => {
    const bad = JSON.stringify([{ sku: 'W-5', name: 'x', stock: -1 }]);
    const res = await post(bad, signed(bad, 'msg_fix'));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      code: 'validation_failed',
      errors: [
        { pointer: '/0/price', code: 'required' },
        { pointer: '/0/stock', code: 'too_small' },
      ],
    });
    const good = products('W-5');
    expect((await post(good, signed(good, 'msg_fix'))).statusCode).toBe(202);
    const notJson = '{"sku":';
    expect((await post(notJson, signed(notJson))).json()).toMatchObject({ status: 400, code: 'invalid_json' });
  });
});

describe('the route', () => {
  it('answers OPTIONS and 405 with Allow, and 404 for an unknown connector or one without a receiver', async () => {
    const options = await app.inject({ method: 'OPTIONS', url: '/connectors/pim/webhook' });
    expect(options.statusCode).toBe(204);
    expect(options.headers.allow).toBe('POST, OPTIONS');
    const get = await app.inject({ url: '/connectors/pim/webhook' });
    expect(get.statusCode).toBe(405);
    expect(get.headers.allow).toBe('POST, OPTIONS');
    const body = products('W-6');
    expect((await post(body, signed(body), 'nope')).statusCode).toBe(404);
    expect((await post(body, signed(body), 'files')).statusCode).toBe(404);
  });

  it('answers 503 while the connector is disabled', async () => {
    await daemon.services.connectors.setEnabled('pim', false);
    const body = products('W-7');
    const res = await post(body, signed(body));
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ code: 'connector_disabled' });
    await daemon.services.connectors.setEnabled('pim', true);
  });
});

describe('receipts', () => {
  it('are pruned after their retention', async () => {
    expect(await daemon.services.connectors.pruneReceipts(7)).toBe(0);
    expect(await daemon.services.connectors.pruneReceipts(0)).toBeGreaterThanOrEqual(3);
  });
});
