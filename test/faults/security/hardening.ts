// What one value or one guesser could do to everyone: category attributes without a size bound
// (50 MB products that took list pages out of memory), numbers stored changed (`1e400` dropped,
// 30 digits rounded, a price of 2^53 + 1 stored as 2^53), and wrong admin tokens sent as
// `Authorization: Bearer`, unthrottled, unlogged, and past the login form's lockout.
import { ADMIN_TOKEN, type World } from '../fuzz/world.ts';
import type { CheckResult } from './auth.ts';
import { fetchFrom } from './from-address.ts';
import { until } from '../harness.ts';

type Problem = { code?: string; errors?: { pointer: string; code: string }[] };

const post = async (world: World, body: string): Promise<{ status: number; problem: Problem }> => {
  const res = await fetch(`${world.daemon.url}/shops/${world.shop.shopPk}/products/`, {
    method: 'POST',
    headers: world.shop.headers,
    body,
  });
  const text = await res.text();
  return {
    status: res.status,
    problem: res.headers.get('content-type')?.startsWith('application/problem+json') ? (JSON.parse(text) as Problem) : {},
  };
};
const pointers = (p: Problem): string => JSON.stringify((p.errors ?? []).map((e) => [e.pointer, e.code]));

/** Attribute values and an item's attributes over their bounds: 400 naming each; a list of large products answers whole. */
export async function checkAttributeSizes(world: World): Promise<CheckResult> {
  const problems: string[] = [];
  const base = { name: 'Big', price: 1, stock: 1 };
  // Under the security daemon's 1 MiB body limit, over each attribute bound.
  const oneValue = await post(world, JSON.stringify([{ sku: 'SIZE-1', ...base, description_html: 'x'.repeat(100_000) }]));
  if (oneValue.status !== 400 || pointers(oneValue.problem) !== '[["/0/description_html","too_large"]]') {
    problems.push(`a 100 KB attribute answered ${oneValue.status} ${pointers(oneValue.problem)} (expected 400 at /0/description_html)`);
  }
  const attrs = Object.fromEntries(Array.from({ length: 15 }, (_, i) => [`spec_${i}`, 'y'.repeat(60_000)]));
  const together = await post(world, JSON.stringify({ sku: 'SIZE-2', ...base, ...attrs }));
  if (together.status !== 400 || pointers(together.problem) !== '[["","attributes_too_large"]]') {
    problems.push(`15 attributes of 60 KB answered ${together.status} ${pointers(together.problem)} (expected 400 attributes_too_large)`);
  }
  // Products at the bound, listed by 3 clients at once: every reply whole.
  const big = Array.from({ length: 3 }, (_, i) => ({
    sku: `SIZE-OK-${i}`,
    ...base,
    ...Object.fromEntries(Array.from({ length: 4 }, (_, k) => [`spec_${k}`, 'z'.repeat(60_000)])),
  }));
  const ok = await fetch(`${world.daemon.url}/shops/${world.shop.shopPk}/products/`, {
    method: 'POST',
    headers: world.shop.headers,
    body: JSON.stringify(big),
  });
  const feed = (await ok.json()) as { url?: string };
  if (ok.status !== 201) problems.push(`3 products at the attribute bound answered ${ok.status}`);
  else {
    await until('the large products stored', async () => {
      const f = (await (await fetch(feed.url!, { headers: world.shop.headers })).json()) as { state: string };
      return f.state === 'done' || f.state === 'failed';
    });
  }
  const t = Date.now();
  const lists = await Promise.all(
    Array.from({ length: 3 }, async () => {
      const r = await fetch(`${world.daemon.url}/shops/${world.shop.shopPk}/products/?page_size=1000`, { headers: world.shop.headers });
      const text = await r.text();
      return {
        status: r.status,
        bytes: text.length,
        count: r.status === 200 ? (JSON.parse(text) as unknown[]).length : 0,
        total: Number(r.headers.get('x-total-count')),
      };
    }),
  );
  for (const l of lists)
    if (l.status !== 200 || l.count !== Math.min(1000, l.total))
      problems.push(`a list answered ${l.status} with ${l.count} of ${l.total} products`);
  if ((lists[0]?.bytes ?? 0) < 3 * 4 * 60_000) problems.push(`the list holds ${lists[0]?.bytes ?? 0} bytes: not the 3 large products`);
  return {
    figures: {
      attribute_bound_refusals: problems.length === 0 ? 2 : 0,
      list_reply_bytes: lists[0]?.bytes ?? 0,
      list_3_at_once_ms: Date.now() - t,
    },
    problems,
  };
}

/** Numbers a double cannot keep as written: refused by pointer, nothing stored. */
export async function checkExactNumbers(world: World): Promise<CheckResult> {
  const problems: string[] = [];
  const body =
    '[{"sku":"NUM-1","name":"n","price":9007199254740993,"stock":1},' +
    '{"sku":"NUM-2","name":"n","price":1,"stock":1,"weight_g":1e400,"serial":123456789012345678901234567890}]';
  const r = await post(world, body);
  const expected = '[["/0/price","inexact_number"],["/1/weight_g","inexact_number"],["/1/serial","inexact_number"]]';
  if (r.status !== 400 || pointers(r.problem) !== expected)
    problems.push(`numbers a double changes answered ${r.status} ${pointers(r.problem)} (expected 400 ${expected})`);
  const stored = await fetch(`${world.daemon.url}/shops/${world.shop.shopPk}/products/?sku=NUM-2`, { headers: world.shop.headers });
  if (stored.headers.get('x-total-count') !== '0') problems.push(`NUM-2 was stored: ${(await stored.text()).slice(0, 200)}`);
  else await stored.text();
  return { figures: { inexact_numbers_refused: r.status === 400 ? 3 : 0 }, problems };
}

/** Wrong Bearer tokens share the login form's throttle, are logged at warn, and lock the right token out too. */
export async function checkBearerThrottle(world: World): Promise<CheckResult> {
  const problems: string[] = [];
  const from = '127.0.0.9';
  const api = `${world.daemon.url}/admin/api/shops`;
  const statuses: number[] = [];
  for (let i = 0; i < 30; i++)
    statuses.push((await fetchFrom(from, api, { headers: { authorization: `Bearer wrong-admin-token-${i}` } })).status);
  const first429 = statuses.indexOf(429);
  if (first429 !== 10 || statuses.slice(10).some((s) => s !== 429))
    problems.push(`30 wrong Bearer tokens answered ${statuses.join(',')} (expected 10 x 401, then 429)`);
  const right = await fetchFrom(from, api, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  if (right.status !== 429 || !(Number(right.headers.get('retry-after')) > 0))
    problems.push(`the right Bearer token from the locked-out address answered ${right.status}`);
  const form = await fetchFrom(from, `${world.daemon.url}/admin/login`, {
    method: 'POST',
    body: `token=${ADMIN_TOKEN}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: world.daemon.url, 'sec-fetch-site': 'same-origin' },
  });
  if (form.status !== 429) problems.push(`the login form from the address locked out by Bearer answered ${form.status}`);
  const warned = world.daemon
    .output()
    .split('\n')
    .filter((l) => l.includes('admin token refused') && l.includes('"level":"warn"')).length;
  if (warned < 10) problems.push(`${warned} wrong Bearer tokens logged at warn (expected 10)`);
  return { figures: { bearer_attempts_before_429: first429, bearer_failures_logged_warn: warned }, problems };
}
