// SQL metacharacters, odd quotes, backslashes, `$1`, percent signs and unicode in every string
// field of a product (and its variations and images) and of an order (its items, customer and
// shipping address, keys included, and a shipment): stored verbatim, read back equal, and
// found again by the searches that take them (?sku=, the admin order search).
import { until, type Target } from '../harness.ts';
import { ADMIN_TOKEN, type World } from '../fuzz/world.ts';
import type { CheckResult } from './auth.ts';

/** No NUL: Postgres text cannot hold it, and the API refuses it elsewhere. */
export const NASTY = [
  "'; drop table products; --",
  '"; drop table orders; --',
  'O\'Brien "quoted" `back`',
  'back\\slash \\\\ \\n \\u0041 \\x00',
  '$1 $2 $$ $tag$ ${x}',
  "%_% LIKE '%' ESCAPE",
  'Ωé漢字🎉 e\u0301 \u202eevil\u202c',
  'tab\there\r\nline',
  '?; :name @p0 {{x}} %s',
  "' or '1'='1",
  "\\'; select pg_sleep(5); --",
];

/** JSON with object keys sorted: jsonb keeps members, not their order. */
const canonical = (v: unknown): string =>
  JSON.stringify(v, (_k, x: unknown) =>
    x !== null && typeof x === 'object' && !Array.isArray(x)
      ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : 1)))
      : x,
  );
const pick = (i: number): string => NASTY[i % NASTY.length]!;
const fit = (s: string, max: number): string => (s.length > max ? s.slice(0, max) : s);

export async function checkVerbatim(world: World, target: Target): Promise<CheckResult> {
  const problems: string[] = [];
  const { url } = world.daemon;
  const { shopPk, headers } = world.shop;
  let fields = 0;
  const same = (where: string, got: unknown, sent: unknown): void => {
    fields++;
    if (canonical(got) !== canonical(sent)) problems.push(`${where}: sent ${JSON.stringify(sent)}, read back ${JSON.stringify(got)}`);
  };

  for (let i = 0; i < NASTY.length; i++) {
    const product = {
      sku: fit(`${pick(i)}#${i}`, 100),
      name: fit(pick(i + 1), 255),
      price: 1.5,
      stock: 2,
      sku_simple: fit(pick(i + 2), 100),
      brand: pick(i + 3),
      description: pick(i + 4).repeat(3),
      short_description: pick(i + 5),
      color: fit(pick(i + 6), 100),
      secondary_color: fit(pick(i + 7), 100),
      size: fit(pick(i + 8), 100),
      images: [`https://img.example.com/${encodeURIComponent(pick(i))}'%27;--.jpg`],
      variations: [
        {
          sku: fit(`${pick(i + 9)}#v${i}`, 100),
          color: fit(pick(i + 10), 100),
          size: fit(pick(i), 100),
          secondary_color: fit(pick(i + 1), 100),
        },
      ],
    };
    const res = await fetch(`${url}/shops/${shopPk}/products/`, { method: 'POST', headers, body: JSON.stringify(product) });
    if (res.status !== 201) {
      problems.push(`product ${i}: ${res.status} ${await res.text()}`);
      continue;
    }
    const feed = (await res.json()) as { url: string };
    await until('the feed', async () => ((await (await fetch(feed.url, { headers })).json()) as { state: string }).state === 'done');
    const found = (await (
      await fetch(`${url}/shops/${shopPk}/products/?sku=${encodeURIComponent(product.sku)}`, { headers })
    ).json()) as Record<string, unknown>[];
    if (found.length !== 1) {
      problems.push(`?sku= of product ${i} found ${found.length}`);
      continue;
    }
    const got = found[0]!;
    for (const k of ['sku', 'name', 'sku_simple', 'brand', 'description', 'short_description', 'color', 'secondary_color', 'size'] as const)
      same(`product ${i} ${k}`, got[k], product[k]);
    same(`product ${i} image`, (got.images as { url: string }[])[0]?.url, product.images[0]);
    const v = (got.variations as Record<string, unknown>[])[0] ?? {};
    for (const k of ['sku', 'color', 'size', 'secondary_color'] as const)
      same(`product ${i} variation ${k}`, v[k], product.variations[0]![k]);
  }

  for (let i = 0; i < NASTY.length; i++) {
    const customer = { email: fit(pick(i + 1), 255), first_name: fit(pick(i + 2), 255), last_name: fit(pick(i + 3), 255) };
    const address = { address: fit(pick(i + 5), 1000), city: fit(pick(i + 6), 255), reference: fit(pick(i + 7), 255) };
    const order = {
      // Fields the order does not keep (a nasty key among them) are ignored.
      order_pk: 4_000_000_000 + i,
      reference: fit(pick(i), 255),
      customer,
      shipping_address: { ...address, [pick(i + 4)]: pick(i + 4) },
      shipping_cost: 0,
      items: [{ item_pk: 1, sku: fit(pick(i + 8), 100), quantity: 1, price: 1 }],
    };
    const base = `${url}/shops/${shopPk}/marketplace/${world.mp}/orders/`;
    const made = await fetch(base, { method: 'POST', headers, body: JSON.stringify(order) });
    if (made.status !== 201) {
      problems.push(`order ${i}: ${made.status} ${await made.text()}`);
      continue;
    }
    const ship = { carrier: fit(pick(i + 1), 100), tracking_code: fit(pick(i + 2), 100), comments: pick(i + 3), delivery_time: 2 };
    const shipped = await fetch(`${base}${order.order_pk}/ship/`, { method: 'POST', headers, body: JSON.stringify(ship) });
    if (shipped.status !== 204) problems.push(`ship of order ${i}: ${shipped.status} ${await shipped.text()}`);
    const got = (await (await fetch(`${base}${order.order_pk}/`, { headers })).json()) as Record<string, unknown> & {
      items: Record<string, unknown>[];
      shipments: Record<string, unknown>[];
    };
    same(`order ${i} reference`, got.reference, order.reference);
    same(`order ${i} customer`, got.customer, order.customer);
    for (const [k, v] of Object.entries(address))
      same(`order ${i} shipping_address ${k}`, (got.shipping_address as Record<string, unknown> | null)?.[k], v);
    same(`order ${i} item sku`, got.items[0]?.sku, order.items[0]!.sku);
    for (const k of ['carrier', 'tracking_code', 'comments'] as const) same(`order ${i} shipment ${k}`, got.shipments[0]?.[k], ship[k]);
    const search = (await (
      await fetch(`${url}/admin/api/orders?reference=${encodeURIComponent(order.reference)}`, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      })
    ).json()) as unknown[] | { results?: unknown[] };
    const hits = Array.isArray(search) ? search : (search.results ?? []);
    fields++;
    if (!hits.some((o) => (o as { order_pk?: number }).order_pk === order.order_pk))
      problems.push(`admin search by reference ${JSON.stringify(order.reference)} did not find order ${i}`);
  }
  // The tables the strings aimed at are all still there.
  const tables = await target.query<{ n: number }>(
    `select count(*)::int n from information_schema.tables where table_name in ('products', 'orders', 'variations', 'order_items')`,
  );
  if (tables[0]?.n !== 4) problems.push(`only ${tables[0]?.n} of the 4 tables remain`);
  return { figures: { verbatim_fields: fields, verbatim_strings: NASTY.length }, problems };
}
