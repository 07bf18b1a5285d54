// Rate limit per key (WAYBILL_RATE_LIMIT=N writes a minute): write N+1 answers 429 with
// Retry-After and problem JSON, and changes nothing; reads go on; another key of the same
// shop, and another shop's key, keep their own allowance.
import { runCli, secondDaemonEnv, spawnDaemon, type ShopKey, type Target } from '../harness.ts';
import type { World } from '../fuzz/world.ts';
import type { CheckResult } from './auth.ts';

const LIMIT = 5;

export async function checkRateLimit(world: World, target: Target): Promise<CheckResult> {
  const problems: string[] = [];
  const daemon = await spawnDaemon({ ...(await secondDaemonEnv(target)), WAYBILL_RATE_LIMIT: String(LIMIT), LOG_LEVEL: 'warn' });
  try {
    const second = (await runCli(['keys', 'create', '--shop', String(world.shop.shopPk), '--json'], target.env)).json<{ key: string }>()
      .key;
    const write = (key: ShopKey | string, i: number): Promise<Response> => {
      const [shopPk, token] = typeof key === 'string' ? [world.shop.shopPk, key] : [key.shopPk, key.key];
      return fetch(`${daemon.url}/shops/${shopPk}/products/`, {
        method: 'POST',
        headers: { authorization: `Token ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ sku: `RL-${i}`, name: 'Rate limited', price: 1, stock: 1 }),
      });
    };
    const feedsOfShop = async (): Promise<number> =>
      (await target.query<{ n: number }>(`select count(*)::int n from feeds where shop_pk = $1`, [world.shop.shopPk]))[0]!.n;
    const feedsBefore = await feedsOfShop();
    const statuses: number[] = [];
    let limited: Response | undefined;
    for (let i = 0; i < LIMIT + 3; i++) {
      const r = await write(world.shop, i);
      statuses.push(r.status);
      if (r.status === 429 && limited === undefined) limited = r;
      else await r.text();
    }
    const expected = [...Array(LIMIT).fill(201), 429, 429, 429];
    if (JSON.stringify(statuses) !== JSON.stringify(expected))
      problems.push(`writes answered ${statuses.join(',')} (expected ${expected.join(',')})`);
    if (limited !== undefined) {
      const retry = Number(limited.headers.get('retry-after'));
      if (!Number.isInteger(retry) || retry < 1 || retry > 60) problems.push(`429 Retry-After is ${limited.headers.get('retry-after')}`);
      if (!(limited.headers.get('content-type') ?? '').startsWith('application/problem+json')) problems.push('429 is not problem JSON');
      await limited.text();
    }
    // A refused write did nothing: only the accepted ones made feeds.
    const made = (await feedsOfShop()) - feedsBefore;
    if (made !== LIMIT) problems.push(`${LIMIT + 3} writes, ${LIMIT} accepted, made ${made} feeds`);
    const read = await fetch(`${daemon.url}/shops/${world.shop.shopPk}/products/?page_size=1`, { headers: world.shop.headers });
    await read.text();
    if (read.status !== 200) problems.push(`a read after the limit answered ${read.status}`);
    const otherKey = await write(second, 100);
    const otherShop = await write(world.other, 101);
    await otherKey.text();
    await otherShop.text();
    if (otherKey.status !== 201) problems.push(`another key of the same shop answered ${otherKey.status}`);
    if (otherShop.status !== 201) problems.push(`another shop's key answered ${otherShop.status}`);
    return {
      figures: { rate_limit: LIMIT, writes_sent: statuses.length + 2, limited: statuses.filter((s) => s === 429).length },
      problems,
    };
  } finally {
    daemon.child.kill('SIGTERM');
    await daemon.exited;
  }
}
