// Every shop operation of the OpenAPI document without a key, with a revoked key and with
// another shop's key (on the shop's own paths, and on its own path naming the first shop's
// ids): 401 or 404, never 2xx, never a byte of the first shop's data. Every admin operation
// without the token and with a wrong one: 401 (429 once its address has sent 10 wrong tokens).
import { buildRequest, type BuildContext, type Operation } from '../fuzz/requests.ts';
import type { World } from '../fuzz/world.ts';
import { fetchFrom } from './from-address.ts';

export interface CheckResult {
  figures: Record<string, number>;
  problems: string[];
}

/** Strings that only the first shop's data contains (skus, names, references, customers). */
const secretsOf = (world: World): string[] => [
  `FZ${world.shop.shopPk}-`,
  `Shop ${world.shop.shopPk} product`,
  `REF${world.shop.shopPk}-`,
  `Customer of shop ${world.shop.shopPk}`,
];

export async function checkAuth(world: World, ops: Operation[], ctx: BuildContext, revokedKey: string): Promise<CheckResult> {
  const problems: string[] = [];
  let requests = 0;
  let leaks = 0;
  const secrets = secretsOf(world);
  const shopOps = ops.filter((o) => o.auth === 'shop');
  // Requests on the first shop's paths that name only its own products and feeds.
  const ownIds: BuildContext = {
    ...ctx,
    world: { ...world, ids: { ...world.ids, shop: [world.shop.shopPk], product: world.ownProducts, feed: world.ids.feed!.slice(0, 1) } },
  };
  const send = async (
    label: string,
    op: Operation,
    authorization: string | undefined,
    expect: number[],
    rewrite = (u: string) => u,
    using = ownIds,
    owner?: number,
    from?: string,
  ): Promise<void> => {
    for (let n = 0; n < 3; n++) {
      const req = buildRequest(1000 * n + ops.indexOf(op), op, using, 'valid');
      const headers = { ...req.headers };
      delete headers.authorization;
      delete headers['idempotency-key'];
      if (authorization !== undefined) headers.authorization = authorization;
      const url = rewrite(req.url);
      const res =
        from === undefined
          ? await fetch(url, { method: req.method, headers, body: req.body, redirect: 'manual' })
          : await fetchFrom(from, url, {
              method: req.method,
              headers: headers as Record<string, string>,
              body: req.body as string | undefined,
            });
      const text = await res.text();
      requests++;
      const where = `${label}: ${req.method} ${url.replace(world.daemon.url, '')}`;
      if (!expect.includes(res.status))
        problems.push(`${where} answered ${res.status} (expected ${expect.join('/')}): ${text.slice(0, 200)}`);
      if (res.status === 401 && op.auth === 'shop' && res.headers.get('www-authenticate') !== 'Token')
        problems.push(`${where}: 401 without WWW-Authenticate: Token`);
      // A key-scoped list answers its key's shop's data: each shop, or each feed's shop, is `owner`.
      if (owner !== undefined && res.status === 200) {
        const list = JSON.parse(text) as unknown;
        const shops = Array.isArray(list)
          ? list
              .map((x: { pk?: unknown; shop_pk?: unknown }) => (op.path === '/shops/' ? x.pk : x.shop_pk))
              .filter((pk) => pk !== undefined)
          : [];
        if (shops.some((pk) => pk !== owner)) problems.push(`${where} answered shops ${[...new Set(shops)].join(',')}, not only ${owner}`);
        if (op.path !== '/fields/' && shops.length === 0)
          problems.push(`${where} answered none of the key's own data: ${text.slice(0, 200)}`);
      }
      const leaked = secrets.filter((s) => text.includes(s));
      if (leaked.length > 0) {
        leaks++;
        problems.push(`${where} leaked ${leaked.join(', ')}`);
      }
    }
  };
  const mine = `/shops/${world.shop.shopPk}/`;
  const theirs = `/shops/${world.other.shopPk}/`;
  for (const op of shopOps) {
    await send('no key', op, undefined, [401]);
    await send('revoked key', op, `Token ${revokedKey}`, [401]);
    await send('wrong key', op, 'Token wb_notakey000000000000000000000000000', [401]);
    // The other shop's key on the first shop's paths (and feeds): as if nothing existed. On a
    // path that names no shop and no feed (the key's shops, its feeds, the field catalog): its
    // own data, nothing of the first shop's (the leak check).
    const keyScoped = !/\{(shop|feed)\}/.test(op.path);
    // (Without the query string: a filter or a far page would rightly answer an empty list.)
    if (keyScoped) await send('other shop key', op, `Token ${world.other.key}`, [200], (u) => u.split('?')[0]!, ownIds, world.other.shopPk);
    else await send('other shop key', op, `Token ${world.other.key}`, [404]);
    // The other shop's key on its own paths that name the first shop's products, orders, feeds.
    if (/\{(product|order)\}/.test(op.path)) {
      await send('own path, first shop ids', op, `Token ${world.other.key}`, [404], (u) => u.replace(mine, theirs));
    }
  }
  const adminOps = ops.filter((o) => o.auth === 'admin');
  for (const op of adminOps) {
    await send('admin, no token', op, undefined, op.path.endsWith('.csv') ? [303] : [401]);
    // A download the dashboard links to sends a browser without a session to the login page.
    // From an address of its own: after 10 wrong tokens it is locked out (429), the others are not.
    await send(
      'admin, wrong token',
      op,
      'Bearer not-the-admin-token-at-all',
      [op.path.endsWith('.csv') ? 303 : 401, 429],
      undefined,
      ownIds,
      undefined,
      '127.0.0.8',
    );
    await send('admin, shop key', op, `Token ${world.shop.key}`, op.path.endsWith('.csv') ? [303] : [401]);
  }
  // The dashboard itself: no session, no page.
  const page = await fetch(`${world.daemon.url}/admin/`, { redirect: 'manual' });
  requests++;
  if (page.status !== 303 || !(page.headers.get('location') ?? '').includes('login'))
    problems.push(`/admin/ without a session answered ${page.status}`);
  return { figures: { auth_requests: requests, shop_operations: shopOps.length, admin_operations: adminOps.length, leaks }, problems };
}
