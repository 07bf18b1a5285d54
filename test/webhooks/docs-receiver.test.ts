// The receiver docs/api.md shows is docs/examples/webhook-receiver.mjs, word for word, and it
// works: run as its comment says, it accepts waybill's deliveries (both signatures checked) and
// refuses forged ones.
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { signedHeaders } from '../../src/webhooks/signature.ts';
import { repoRoot } from '../helpers/cli.ts';
import { useTestDaemon } from '../helpers/daemon.ts';
import { until } from '../helpers/until.ts';

const example = path.join(repoRoot, 'docs/examples/webhook-receiver.mjs');
const source = readFileSync(example, 'utf8');

const daemon = await useTestDaemon();
const app = daemon.app!;
const shop = await daemon.services.shops.create({ name: 'Docs receiver' });
const secret = shop.webhook_secret;

const child = spawn(process.execPath, [example], {
  cwd: repoRoot,
  env: { ...process.env, WEBHOOK_SECRET: secret, PORT: '0' },
  stdio: ['ignore', 'pipe', 'pipe'],
});
afterAll(() => void child.kill());
let out = '';
child.stdout.on('data', (c: Buffer) => (out += c.toString()));
child.stderr.on('data', (c: Buffer) => (out += c.toString()));
const port = await until(`the example receiver to listen (${out})`, async () => /listening on (\d+)/.exec(out)?.[1]);
const url = `http://127.0.0.1:${port}/`;
/** The events the receiver printed (whole lines only: output arrives in chunks). */
const lines = (): Record<string, unknown>[] =>
  out
    .split('\n')
    .slice(0, -1)
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('the documented receiver', () => {
  it('is the code docs/api.md shows', () => {
    const doc = readFileSync(path.join(repoRoot, 'docs/api.md'), 'utf8');
    const block = /<!-- receiver: docs\/examples\/webhook-receiver\.mjs -->\n```js\n([\s\S]*?)```/.exec(doc);
    expect(block?.[1]).toBe(source);
  });

  it('takes both events from waybill, signatures checked', async () => {
    await daemon.services.shops.update(shop.pk, { webhook_url: url });
    const { key } = await daemon.services.shops.createKey(shop.pk);
    const mp = (await daemon.services.marketplaces.create({ name: 'M', pk: 55 })).pk;
    const auth = { authorization: `Token ${key}` };
    expect(
      (
        await app.inject({
          method: 'POST',
          url: `/shops/${shop.pk}/marketplace/${mp}/orders/`,
          headers: auth,
          payload: { order_pk: 9, items: [{ item_pk: 1, sku: 'A', quantity: 1, price: 1 }] },
        })
      ).statusCode,
    ).toBe(201);
    expect(
      (await app.inject({ method: 'POST', url: `/shops/${shop.pk}/marketplace/${mp}/orders/9/cancel/`, headers: auth })).statusCode,
    ).toBe(204);
    expect(
      (
        await app.inject({
          method: 'POST',
          url: `/shops/${shop.pk}/products/`,
          headers: auth,
          payload: [{ sku: 'D1', name: 'Doc', price: 1, stock: 1 }],
        })
      ).statusCode,
    ).toBe(201);
    await until('three events printed by the receiver', async () => lines().length >= 3, 30_000);
    expect(
      lines()
        .map((l) => [l.event, l.type])
        .sort(),
    ).toEqual([
      ['product_feed:feed:finish', 'feed.completed'],
      ['product_feed:order:created', 'order.created'],
      ['product_feed:order:created', 'order.status_changed'],
    ]);
    for (const l of lines()) expect(l.location).toMatch(/^http:\/\/localhost:80\/(shops|feeds)\//);
    // Recorded once waybill has read the answer (the receiver prints after answering).
    const deliveries = await until('three delivery records', async () => {
      const list = await daemon.services.webhooks.listDeliveries({ shop: shop.pk });
      return list.length === 3 ? list : undefined;
    });
    expect(deliveries.map((d) => [d.state, d.attempts.map((a) => a.status)])).toEqual([
      ['delivered', [204]],
      ['delivered', [204]],
      ['delivered', [204]],
    ]);
  });

  it('refuses a forged body, a wrong webhook-signature and a wrong X-Madkting-Signature with 401', async () => {
    const body = JSON.stringify({ event: 'product_feed:order:created', type: 'order.created', pk: 1 });
    const good = {
      ...signedHeaders(secret, 'msg_forged', body),
      'x-madkting-signature': createHmac('sha256', secret).update(body).digest('hex'),
      'content-type': 'application/json',
    };
    const post = (headers: Record<string, string>, b = body) => fetch(url, { method: 'POST', headers, body: b });
    expect((await post(good)).status).toBe(204);
    const forged = await post(good, body.replace('"pk":1', '"pk":2'));
    expect([forged.status, await forged.text()]).toEqual([401, 'error: bad webhook-signature']);
    const other = `whsec_${Buffer.from('not the shop secret!!!!!').toString('base64')}`;
    expect((await post({ ...good, ...signedHeaders(other, 'msg_forged', body) })).status).toBe(401);
    const hex = await post({ ...good, 'x-madkting-signature': createHmac('sha256', other).update(body).digest('hex') });
    expect([hex.status, await hex.text()]).toEqual([401, 'error: bad X-Madkting-Signature']);
  });
});
