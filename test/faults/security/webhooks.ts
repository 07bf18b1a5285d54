// catalog-webhook signatures: wrong secret, expired or future timestamp, missing or malformed
// headers, a body changed after signing: 401 and nothing applied. A replay of an accepted
// webhook-id (same body, or another body signed again) applies nothing new.
import { signedHeaders } from '../../../src/webhooks/signature.ts';
import { until, type Target } from '../harness.ts';
import { WEBHOOK_SECRET, type World } from '../fuzz/world.ts';
import type { CheckResult } from './auth.ts';

export async function checkWebhooks(world: World, target: Target): Promise<CheckResult> {
  const problems: string[] = [];
  const hook = `${world.daemon.url}/connectors/pim/webhook`;
  const feedsOfPim = async (): Promise<number> =>
    (await target.query<{ n: number }>(`select count(*)::int n from feeds where source = 'connector:pim'`))[0]!.n;
  const post = (body: string, headers: Record<string, string>): Promise<Response> =>
    fetch(hook, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  const body = JSON.stringify([{ sku: 'HOOK-1', name: 'Signed once', price: 5, stock: 1 }]);
  const now = Date.now();
  const good = signedHeaders(WEBHOOK_SECRET, 'msg_sec_1', body, now);
  const refused: [string, string, Record<string, string>][] = [
    [
      'wrong secret',
      body,
      signedHeaders('whsec_d3Jvbmctc2VjcmV0LXdyb25nLXNlY3JldA==', 'msg_sec_w', body, now) as unknown as Record<string, string>,
    ],
    ['expired (1 h old)', body, signedHeaders(WEBHOOK_SECRET, 'msg_sec_e', body, now - 3_600_000) as unknown as Record<string, string>],
    [
      'from the future (+1 h)',
      body,
      signedHeaders(WEBHOOK_SECRET, 'msg_sec_f', body, now + 3_600_000) as unknown as Record<string, string>,
    ],
    ['body changed after signing', body.replace('Signed once', 'Tampered'), { ...good, 'webhook-id': 'msg_sec_t' }],
    ['id changed after signing', body, { ...good, 'webhook-id': 'msg_sec_other' }],
    ['no signature', body, { 'webhook-id': 'msg_sec_n', 'webhook-timestamp': String(Math.floor(now / 1000)) }],
    ['malformed signature', body, { ...good, 'webhook-signature': 'v1,not base64 at all!!' }],
    ['v2 scheme only', body, { ...good, 'webhook-signature': good['webhook-signature'].replace('v1,', 'v2,') }],
    ['timestamp not a number', body, { ...good, 'webhook-timestamp': 'soon' }],
    ['no headers', body, {}],
  ];
  const before = await feedsOfPim();
  for (const [label, b, headers] of refused) {
    const res = await post(b, headers);
    const text = await res.text();
    if (res.status !== 401) problems.push(`${label}: ${res.status} (expected 401) ${text.slice(0, 200)}`);
  }
  if ((await feedsOfPim()) !== before) problems.push('a refused webhook created a feed');

  const first = await post(body, good as unknown as Record<string, string>);
  if (first.status !== 202) problems.push(`a well-signed webhook answered ${first.status}: ${await first.text()}`);
  const location = first.headers.get('location');
  await until(
    'the webhook feed to finish',
    async () =>
      (await target.query<{ state: string }>(`select state from feeds where source = 'connector:pim' order by created_at desc limit 1`))[0]
        ?.state === 'done',
  );
  const afterFirst = await feedsOfPim();
  // The same delivery again (a retry or a replay by an attacker who captured it).
  const replay = await post(body, good as unknown as Record<string, string>);
  if (replay.status !== 202 || replay.headers.get('location') !== location)
    problems.push(`replay answered ${replay.status}, Location ${replay.headers.get('location')} (first ${location})`);
  // The same id with another body, correctly signed: still the first delivery's answer.
  const other = JSON.stringify([{ sku: 'HOOK-1', name: 'Replayed change', price: 999, stock: 9 }]);
  const replayOther = await post(other, signedHeaders(WEBHOOK_SECRET, 'msg_sec_1', other) as unknown as Record<string, string>);
  if (replayOther.status !== 202 || replayOther.headers.get('location') !== location)
    problems.push(`replay with another body answered ${replayOther.status}`);
  const after = await feedsOfPim();
  const stored = await target.query<{ name: string; price: number }>(
    `select name, price from products where sku = 'HOOK-1' and shop_pk = $1`,
    [world.shop.shopPk],
  );
  if (after !== afterFirst) problems.push(`replays created ${after - afterFirst} feeds`);
  if (stored.length !== 1 || stored[0]!.name !== 'Signed once' || Number(stored[0]!.price) !== 5)
    problems.push(`after the replays the product is ${JSON.stringify(stored)}`);
  return { figures: { webhook_refused: refused.length, webhook_replays: 2, webhook_feeds: after - before }, problems };
}
