// Hostile sizes and shapes: bodies over the limit (413, with and without Content-Length),
// JSON nested 100,000 levels deep (400 or 413, no crash), huge strings (400 or 413), and a
// URL far too long; the daemon must answer each with problem JSON and stay up.
import { ADMIN_TOKEN, type World } from '../fuzz/world.ts';
import type { CheckResult } from './auth.ts';

/** The security daemon's WAYBILL_BODY_LIMIT, bytes. */
export const BODY_LIMIT = 1024 * 1024;

export async function checkLimits(world: World): Promise<CheckResult> {
  const problems: string[] = [];
  let requests = 0;
  const { url } = world.daemon;
  const shop = world.shop;
  const order = world.orders[0]!;
  const targets = [
    { path: `/shops/${shop.shopPk}/products/`, method: 'POST', headers: shop.headers },
    { path: `/shops/${shop.shopPk}/products/`, method: 'PUT', headers: shop.headers },
    { path: `/shops/${shop.shopPk}/marketplace/${world.mp}/orders/`, method: 'POST', headers: shop.headers },
    { path: `/shops/${shop.shopPk}/marketplace/${world.mp}/orders/${order.order}/ship/`, method: 'POST', headers: shop.headers },
    { path: '/connectors/pim/webhook', method: 'POST', headers: { 'content-type': 'application/json' } },
    { path: '/admin/api/shops', method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` } },
  ];
  const expectOne = async (
    label: string,
    t: (typeof targets)[number],
    body: string | ReadableStream<Uint8Array>,
    allowed: number[],
    init: RequestInit = {},
    problemOnly = true,
  ): Promise<void> => {
    const res = await fetch(`${url}${t.path}`, { method: t.method, headers: t.headers, body, ...init }).catch((e: Error) => e);
    requests++;
    if (res instanceof Error) {
      problems.push(`${label} ${t.method} ${t.path}: ${res.message}`);
      return;
    }
    const text = await res.text();
    if (!allowed.includes(res.status))
      problems.push(`${label} ${t.method} ${t.path}: ${res.status} (expected ${allowed.join('/')}) ${text.slice(0, 200)}`);
    else if (problemOnly && !(res.headers.get('content-type') ?? '').startsWith('application/problem+json'))
      problems.push(`${label} ${t.method} ${t.path}: ${res.status} is not problem JSON`);
  };

  const over = JSON.stringify([{ sku: 'BIG', name: 'x'.repeat(BODY_LIMIT + 10), price: 1, stock: 1 }]);
  const deepArrays = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
  const deepObject = `{"sku":"DEEP","name":"deep","price":1,"stock":1,"customer":${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}}`;
  // Under the limit but far over every field's maximum.
  const hugeStrings = JSON.stringify({
    sku: 's'.repeat(300_000),
    name: 'n'.repeat(300_000),
    reference: 'r'.repeat(300_000),
    carrier: 'c'.repeat(300_000),
    order_pk: 1,
    items: [{ item_pk: 1, sku: 'k'.repeat(100_000), quantity: 1, price: 1 }],
  });
  const hugeKeys = `{${Array.from({ length: 20_000 }, (_, i) => `"k${i}${'x'.repeat(20)}":${i}`).join(',')}}`;
  // Unsigned pushes to the webhook answer 401 when the body is otherwise acceptable.
  const refusal = (t: (typeof targets)[number]): number[] => (t.path.startsWith('/connectors/') ? [400, 401, 413] : [400, 413]);
  for (const t of targets) {
    await expectOne('over the limit', t, over, [413]);
    // Streamed without Content-Length: the limit holds while reading.
    const stream = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode(over));
        c.close();
      },
    });
    await expectOne('over the limit, chunked', t, stream, [413], { duplex: 'half' } as RequestInit);
    await expectOne('100,000 nested arrays', t, deepArrays, [400, 413]);
    await expectOne('100,000 nested objects', t, deepObject, [400, 413]);
    await expectOne('huge strings', t, hugeStrings, refusal(t));
    // 20,000 unknown members: ignored (unknown fields are accepted) or refused, never a crash.
    await expectOne('20,000 keys', t, hugeKeys, [...refusal(t), 201, 202, 204], {}, false);
  }
  // A URL of 100 KB: Node's parser refuses it before any route (431, problem JSON); the daemon stays up.
  const long = await fetch(`${url}/shops/${shop.shopPk}/products/?sku=${'x'.repeat(100_000)}`, { headers: shop.headers }).catch(
    (e: Error) => e,
  );
  requests++;
  if (long instanceof Error || long.status !== 431 || long.headers.get('content-type') !== 'application/problem+json') {
    problems.push(`a 100 KB URL answered ${long instanceof Error ? long.message : `${long.status} ${long.headers.get('content-type')}`}`);
  }
  const alive = await fetch(`${url}/healthz`).then(
    (r) => r.status === 200,
    () => false,
  );
  if (!alive) problems.push('the daemon is down after the size checks');
  return { figures: { size_requests: requests, size_targets: targets.length }, problems };
}
