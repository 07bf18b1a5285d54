// Intake details an attacker or a careless client meets: a body that is not UTF-8 (400, never
// stored with U+FFFD), dates that do not exist (400 in bodies and query strings), an empty body
// sent as JSON where the body is optional (no body: 204/201), AfterShip events of other types
// (200), X-Content-Type-Options on every reply, a Content-Security-Policy on /docs and each of
// its assets, and a key sent as ?token= never written to the log.
import { createHmac } from 'node:crypto';
import { signedHeaders } from '../../../src/webhooks/signature.ts';
import { secondDaemonEnv, spawnDaemon, type Target } from '../harness.ts';
import { ADMIN_TOKEN, AFTERSHIP_SECRET, WEBHOOK_SECRET, type World } from '../fuzz/world.ts';
import type { CheckResult } from './auth.ts';

export async function checkIntake(world: World, target: Target): Promise<CheckResult> {
  const problems: string[] = [];
  const { url } = world.daemon;
  const shop = world.shop;
  const products = `/shops/${shop.shopPk}/products/`;
  const orders = `/shops/${shop.shopPk}/marketplace/${world.mp}/orders/`;
  let requests = 0;
  const call = async (label: string, path: string, init: RequestInit, expected: number[], code?: string): Promise<Response | null> => {
    const res = await fetch(`${url}${path}`, init).catch((e: Error) => e);
    requests++;
    if (res instanceof Error) {
      problems.push(`${label}: ${res.message}`);
      return null;
    }
    const text = await res.clone().text();
    if (!expected.includes(res.status)) problems.push(`${label}: ${res.status} (expected ${expected.join('/')}) ${text.slice(0, 200)}`);
    else if (code !== undefined && !text.includes(`"code":"${code}"`)) problems.push(`${label}: not ${code}: ${text.slice(0, 200)}`);
    if (res.headers.get('x-content-type-options') !== 'nosniff') problems.push(`${label}: no X-Content-Type-Options: nosniff`);
    return res;
  };
  const json = { ...shop.headers, 'content-type': 'application/json' };

  // Not UTF-8: "é" in Latin-1, on the API and on both kinds of receivers.
  const latin1 = (s: string): Buffer => Buffer.from(s, 'latin1');
  await call(
    'latin-1 product',
    products,
    { method: 'POST', headers: json, body: latin1('{"sku":"ENC-\xe9","name":"Caf\xe9","price":1,"stock":1}') },
    [400],
    'invalid_encoding',
  );
  await call(
    'latin-1 order',
    orders,
    {
      method: 'POST',
      headers: json,
      body: latin1('{"order_pk":5100,"reference":"\xe9","items":[{"item_pk":1,"sku":"a","quantity":1,"price":1}]}'),
    },
    [400],
    'invalid_encoding',
  );
  const pushed = latin1('[{"sku":"ENC-PIM-\xe9","name":"n","price":1,"stock":1}]');
  await call(
    'latin-1 catalog webhook',
    '/connectors/pim/webhook',
    {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...signedHeaders(WEBHOOK_SECRET, 'msg_enc_1', pushed.toString('latin1')) },
      body: pushed,
    },
    [400],
    'invalid_encoding',
  );
  const carrier = latin1('{"event":"tracking_update","event_id":"enc-1","msg":{"tracking_number":"\xe9"}}');
  await call(
    'latin-1 carrier webhook',
    '/webhooks/carriers/parcels/',
    {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'aftership-hmac-sha256': createHmac('sha256', AFTERSHIP_SECRET).update(carrier).digest('base64'),
      },
      body: carrier,
    },
    [400],
    'invalid_encoding',
  );
  const replaced = await target.query<{ n: number }>(
    `select count(*)::int n from products where sku like 'ENC-%' or position(U&'\\FFFD' in name) > 0`,
  );
  if (replaced[0]?.n !== 0) problems.push(`${replaced[0]?.n} products stored from bodies that were not UTF-8`);

  // Dates that do not exist, by the one rule of bodies and query strings.
  await call(
    'updated_since 30 February',
    `${products}?updated_since=2026-02-30T00:00:00`,
    { headers: shop.headers },
    [400],
    'validation_failed',
  );
  await call(
    'discount_from year 0',
    products,
    { method: 'POST', headers: json, body: '{"sku":"DATE-0","name":"d","price":1,"stock":1,"discount_from":"0000-01-01T00:00:00"}' },
    [400],
    'validation_failed',
  );

  // An empty body sent as JSON where the body is optional is no body.
  const order = 5_200;
  await call(
    'order for empty bodies',
    orders,
    { method: 'POST', headers: json, body: JSON.stringify({ order_pk: order, items: [{ item_pk: 1, sku: 'a', quantity: 1, price: 1 }] }) },
    [201],
  );
  for (const action of ['pending', 'ready_to_ship', 'ship', 'not_delivered', 'ship', 'delivered', 'returned']) {
    await call(`empty ${action}`, `${orders}${order}/${action}/`, { method: 'POST', headers: json, body: '' }, [204]);
  }
  await call(
    'order to cancel',
    orders,
    {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ order_pk: order + 1, items: [{ item_pk: 1, sku: 'a', quantity: 1, price: 1 }] }),
    },
    [201],
  );
  await call('empty cancel', `${orders}${order + 1}/cancel/`, { method: 'POST', headers: json, body: '' }, [204]);
  const [productPk, variationPk] = world.variations.at(-1)!;
  await call(
    'empty image DELETE',
    `${products}${productPk}/variations/${variationPk}/images/`,
    { method: 'DELETE', headers: json, body: '' },
    [201],
  );
  await call('empty product DELETE', `${products}${productPk}/`, { method: 'DELETE', headers: json, body: '' }, [204]);
  await call('empty products POST (a body is required)', products, { method: 'POST', headers: json, body: '' }, [400], 'invalid_json');

  // AfterShip events other than tracking_update need no tracking number.
  for (const [i, event] of ['edd_revise', 'tracking_created'].entries()) {
    const body = JSON.stringify({ event, event_id: `sec-other-${i}`, msg: {} });
    await call(
      `AfterShip ${event}`,
      '/webhooks/carriers/parcels/',
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'aftership-hmac-sha256': createHmac('sha256', AFTERSHIP_SECRET).update(body).digest('base64'),
        },
        body,
      },
      [200],
    );
  }

  // nosniff on the admin API too; /docs and every asset it loads carry the policy.
  await call('admin API', '/admin/api/queues', { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }, [200]);
  const page = await call('docs', '/docs/', { headers: { accept: 'text/html' } }, [200]);
  const csp = page?.headers.get('content-security-policy') ?? '';
  if (!/default-src 'self'/.test(csp) || !/script-src 'self'(;|$)/.test(csp) || !/object-src 'none'/.test(csp))
    problems.push(`/docs policy: ${JSON.stringify(csp)}`);
  const assets = [...((await page?.text()) ?? '').matchAll(/(?:src|href)="(\.\/[^"]+)"/g)].map(
    (m) => new URL(m[1]!, `${url}/docs/`).pathname,
  );
  if (assets.length < 4) problems.push(`/docs loads ${assets.length} assets`);
  for (const asset of assets) {
    const res = await call(`docs asset ${asset}`, asset, {}, [200]);
    if (res?.headers.get('content-security-policy') !== csp) problems.push(`${asset}: another policy or none`);
  }

  // A key in the query string: a daemon logging every request (info) never writes it.
  const logging = await spawnDaemon({ ...world.cliEnv, ...(await secondDaemonEnv(target)), LOG_LEVEL: 'info' }, ['--role', 'api']);
  try {
    for (const q of [`token=${shop.key}`, `api_key=${shop.key}&page=1`, `Token=${encodeURIComponent(`Token ${shop.key}`)}`]) {
      await fetch(`${logging.url}${products}?${q}`).then((r) => r.text());
      requests++;
    }
  } finally {
    logging.child.kill('SIGTERM');
    await logging.exited;
  }
  const out = logging.output();
  if (out.includes(shop.key.slice(3))) problems.push('a key sent in the query string is in the log');
  // The requests were logged (one line each, by path: the query string is never written).
  if (out.split('\n').filter((l) => l.includes('"msg":"request"') && l.includes(`"path":"${products}"`)).length < 3)
    problems.push('the daemon did not log those requests');

  return { figures: { intake_requests: requests, intake_docs_assets: assets.length }, problems };
}
