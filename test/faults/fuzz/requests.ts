// Turns the OpenAPI document into operations, and an operation plus a request number into one
// request: valid, or broken in its body, path, query string or headers.
import { signedHeaders } from '../../../src/webhooks/signature.ts';
import { BROKEN_JSON, GARBAGE, HOSTILE_STRINGS, chance, int, mutate, pick, rngOf, validOf, type JsonSchema, type Rng } from './generate.ts';
import { aftershipSignature } from '../../../connectors/tracking-aftership/client.ts';
import { ADMIN_TOKEN, AFTERSHIP_SECRET, MODULE_RESERVE, WEBHOOK_SECRET, type World } from './world.ts';

export interface Operation {
  id: string;
  method: string;
  path: string;
  params: { name: string; in: string; schema: JsonSchema; required?: boolean }[];
  body: JsonSchema | undefined;
  responses: Record<string, { content?: Record<string, { schema: JsonSchema }> }>;
  auth: 'shop' | 'admin' | 'none';
}

type Security = Record<string, string[]>[];
interface OpenApi {
  security?: Security;
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: Operation['params'];
        requestBody?: { content: Record<string, { schema: JsonSchema }> };
        responses?: Operation['responses'];
        security?: Security;
      }
    >
  >;
}

/** What the document says an operation needs: its own `security`, else the document's. */
function authOf(security: Security | undefined): Operation['auth'] {
  const schemes = (security ?? []).flatMap((s) => Object.keys(s));
  return schemes.includes('adminBearer') ? 'admin' : schemes.includes('token') ? 'shop' : 'none';
}

export function operationsOf(doc: OpenApi): Operation[] {
  const out: Operation[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const auth = authOf(op.security ?? doc.security);
      out.push({
        id: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        params: op.parameters ?? [],
        body: op.requestBody?.content['application/json']?.schema,
        responses: op.responses ?? {},
        auth,
      });
    }
  }
  return out;
}

export type Kind = 'valid' | 'body' | 'json' | 'path' | 'query' | 'headers' | 'method';

export interface FuzzRequest {
  n: number;
  op: Operation;
  kind: Kind;
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | undefined;
  /** A `headers` request whose credentials were removed or made wrong (never another shop's key). */
  credentials?: 'missing' | 'wrong';
}

const WEIGHTS: [Kind, number][] = [
  ['valid', 40],
  ['body', 20],
  ['json', 5],
  ['path', 10],
  ['query', 8],
  ['headers', 15],
  ['method', 2],
];
const kindOf = (r: Rng): Kind => {
  let x = r() * 100;
  for (const [k, w] of WEIGHTS) if ((x -= w) < 0) return k;
  return 'valid';
};

// (No `%2e%2e`: fetch resolves it as `..` before sending, so it would name another path, such as /shops/{shop}/.)
const BAD_IDS = [
  '0',
  '-1',
  'abc',
  '1.5',
  '1e3',
  '99999999999999999999',
  '9223372036854775808',
  '%00',
  '..%2F..%2F',
  '%F0%9F%92%A5',
  '%EF%BC%91',
  '%20',
  "1'%3B--",
  '%24%7B1%7D',
  'x'.repeat(300),
  '2147483648',
];
const ALLOWED_ELSEWHERE = ['PATCH', 'PUT', 'DELETE', 'GET', 'POST'];

/** A valid value of a path parameter, from the world's real data. */
function paramValue(name: string, world: World, r: Rng, picked: Record<string, string | number>): string | number {
  if (name === 'variation' && picked.product !== undefined) {
    const match = world.variations.filter(([p]) => p === picked.product);
    if (match.length > 0) return pick(r, match)[1];
  }
  return pick(r, world.ids[name] ?? [int(r, 1, 5)]);
}

/**
 * Operations that delete or replace what a path names (a product, its variations, images):
 * they only ever aim at the shop's first products, so that the last ones stay for the valid
 * requests of the other operations (first: the pks that hostile bodies such as {"pk":1} name).
 */
export const destructive = (op: Operation): boolean => op.method !== 'GET' && /\/products\/\{product\}\//.test(op.path);
const STABLE = 3;

function pathParams(
  op: Operation,
  world: World,
  r: Rng,
  broken: boolean,
  valid: boolean,
  n: number,
  opCount: number,
): Record<string, string> {
  const picked: Record<string, string | number> = {};
  const own = world.ownProducts;
  const others = world.ids.product!.filter((p) => !own.includes(p as number));
  const products = destructive(op) ? [...own.slice(0, -STABLE), ...(valid ? [] : others)] : valid ? own.slice(-STABLE) : world.ids.product!;
  const ids: World['ids'] = { ...world.ids, product: products };
  if (valid) {
    // A valid request names the shop's own data only (ids also holds another shop's, which the
    // API rightly refuses), the connector that takes webhooks and the carrier connector.
    Object.assign(ids, { shop: [world.shop.shopPk], feed: world.ids.feed!.filter((f) => f !== world.otherFeed), carrierHook: ['parcels'] });
    if (op.path.startsWith('/connectors/')) ids.name = ['pim'];
  }
  // Jobs: a retry aims at dead or finished jobs, a cancel at waiting or finished ones, so that
  // neither uses up the other's (a cancelled dead job can no longer be retried).
  const jobs = op.path.endsWith('/retry')
    ? world.jobs.filter(([, id]) => !world.waitingJobs.includes(id))
    : op.path.endsWith('/cancel')
      ? world.jobs.filter(([, id]) => !world.deadJobs.includes(id))
      : world.jobs;
  const variations = world.variations.filter(([p]) => products.includes(p));
  world = { ...world, ids, variations };
  const names = op.params.filter((p) => p.in === 'path').map((p) => p.name);
  const action = /\/orders\/\{order\}\/(\w+)\/$/.exec(op.path)?.[1];
  if (valid && action !== undefined && world.actionOrders[action] !== undefined) picked.order = world.actionOrders[action].order;
  if (names.includes('queue') && names.includes('id') && (valid || chance(r, 0.8))) [picked.queue, picked.id] = pick(r, jobs);
  if (names.includes('product') && names.includes('variation') && (valid || chance(r, 0.9)) && variations.length > 0) {
    const [p, v] = pick(r, variations);
    picked.product = p;
    picked.variation = v;
  }
  // One image: an image of the product (of the variation) the path names.
  if (names.includes('image') && (valid || chance(r, 0.9))) {
    const images = names.includes('variation')
      ? world.variationImages.filter(([p]) => products.includes(p)).map(([p, v, im]) => [p, v, im])
      : world.images.filter(([p]) => products.includes(p)).map(([p, im]) => [p, undefined, im]);
    if (images.length > 0) {
      const [p, v, im] = pick(r, images);
      Object.assign(picked, { product: p, image: im }, v === undefined ? {} : { variation: v });
    }
  }
  // A module-integration record: a valid request deletes one that no other valid request names
  // (by its number: valid requests of one operation are ops apart), the others the reserve.
  if (names.includes('id') && op.path.includes('/module-integrations/')) {
    const { ids: records } = world.modules;
    picked.order = world.modules.order;
    picked.id = valid ? records[Math.floor(n / opCount) % (records.length - MODULE_RESERVE)]! : pick(r, records.slice(-MODULE_RESERVE));
  }
  const pool = (name: string): string =>
    name !== 'name' ? name : op.path.endsWith('/disable') ? 'disable' : op.path.startsWith('/webhooks/carriers/') ? 'carrierHook' : name;
  for (const name of names) picked[name] ??= paramValue(pool(name), world, r, picked);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(picked)) out[k] = encodeURIComponent(String(v));
  if (broken && names.length > 0) {
    const victim = pick(r, names);
    out[victim] = chance(r, 0.3) ? String(int(r, 1, 2 ** 31 - 1)) : pick(r, BAD_IDS);
  }
  return out;
}

function queryString(op: Operation, r: Rng, broken: boolean): string {
  const q: string[] = [];
  for (const p of op.params.filter((x) => x.in === 'query')) {
    // Values stay under 2 KB: a longer URL is refused by Node's HTTP parser (431) before any route.
    if (broken && chance(r, 0.5))
      q.push(
        `${p.name}=${encodeURIComponent(
          String(
            pick(
              r,
              [...GARBAGE, ...HOSTILE_STRINGS].filter((g) => typeof g !== 'object' && String(g).length < 2000),
            ),
          ),
        )}`,
      );
    else if (chance(r, 0.4))
      q.push(
        `${p.name}=${encodeURIComponent(String(p.schema.format === undefined ? validOf(p.schema, r) : `2026-0${int(r, 1, 9)}-1${int(r, 0, 9)}T10:00:00Z`))}`,
      );
  }
  if (broken) q.push(pick(r, ['page=0', 'page_size=100000', 'limit=-5', 'page=abc', 'x=%00', '%zz=1', 'state=bogus', 'hours=999999']));
  return q.length === 0 ? '' : `?${q.join('&')}`;
}

/** A valid body of the operation (orders' actions aim at the order's real items). */
function validBody(op: Operation, world: World, r: Rng, params: Record<string, string>, products: JsonSchema | undefined): unknown {
  if (op.path.startsWith('/connectors/')) return validOf(products, r);
  if (op.path.startsWith('/webhooks/carriers/')) {
    // An AfterShip tracking update, shaped like its documented webhook, for a shipped order or not.
    return {
      event_id: `evt-${int(r, 0, 2 ** 30)}`,
      event: pick(r, ['tracking_update', 'tracking_update', 'edd_revise']),
      msg: {
        tracking_number: pick(r, ['JD0001', 'fz-1', '1Z9999W99999999999']),
        slug: pick(r, ['dhl', 'ups']),
        tag: pick(r, ['InTransit', 'Delivered', 'Exception', 'OutForDelivery']),
        checkpoints: [{ tag: 'InTransit', checkpoint_time: '2026-11-21T10:00:00+01:00', message: 'Arrived at hub' }],
      },
    };
  }
  const body = validOf(op.body, r) as Record<string, unknown>;
  // `pk` members name real variations, images or products most of the time.
  // (A bulk delete names only the products that destructive operations may take, always.)
  const bulkDelete = op.method === 'DELETE' && op.path === '/shops/{shop}/products/';
  const pool = op.path.endsWith('/variations/')
    ? world.ids.variation
    : op.path.endsWith('/images/')
      ? world.ids.image
      : bulkDelete
        ? world.ownProducts.slice(0, -STABLE)
        : world.ids.product;
  realPks(body, pool ?? [], r, bulkDelete ? 1 : 0.7);
  const order = [...world.orders, ...Object.values(world.actionOrders)].find((o) => String(o.order) === params.order);
  if (order !== undefined && body !== null && typeof body === 'object') {
    if (chance(r, 0.5)) delete body.items;
    else body.items = order.items.filter(() => chance(r, 0.7)).map((item_pk) => ({ item_pk }));
    if (Array.isArray(body.items) && body.items.length === 0) delete body.items;
  }
  return body;
}

/**
 * The body of a valid request where the schema alone allows bodies the API rightly refuses
 * (rules across fields, pk or sku required, a shop that exists): a plain recipe instead.
 */
function recipe(op: Operation, world: World, params: Record<string, string>, n: number, tag: string): unknown {
  const variation = world.variations.find(([p]) => String(p) === params.product)?.[1];
  // The product's images, a different one by request (a DELETE removes one for good).
  const images = world.images.filter(([p]) => String(p) === params.product);
  const image = images.length === 0 ? undefined : images[n % images.length]![1];
  switch (op.id) {
    case 'POST /shops/{shop}/products/':
    case 'POST /connectors/{name}/webhook':
      return [{ sku: `FZV-${tag}`, name: 'Valid fuzz product', price: 9.5, stock: 3 }];
    case 'PUT /shops/{shop}/products/':
      return [{ sku: `FZ${world.shop.shopPk}-5`, stock: 4 }];
    case 'DELETE /shops/{shop}/products/':
      return [{ sku: `FZV-${tag}` }];
    case 'POST /shops/{shop}/products/{product}/variations/':
      return [{ sku: `FZV-${tag}-v` }];
    case 'PUT /shops/{shop}/products/{product}/variations/':
      return variation === undefined ? undefined : [{ pk: variation, stock: 2 }];
    case 'POST /shops/{shop}/products/{product}/images/':
      return [{ url: `https://img.example.com/fzv-${tag}.jpg` }];
    case 'PUT /shops/{shop}/products/{product}/images/':
      return image === undefined ? undefined : [{ pk: image, position: 1 }];
    case 'DELETE /shops/{shop}/products/{product}/images/':
      return image === undefined ? undefined : [{ pk: image }];
    case 'POST /admin/api/keys':
      return { shop_pk: world.shop.shopPk };
    case 'POST /shops/{shop}/marketplace/{mp}/orders/':
      return {
        order_pk: 3_100_000_000 + n,
        reference: `FZV-${tag}`,
        customer: { name: 'Valid fuzz customer' },
        shipping_address: {},
        shipping_cost: 1,
        items: [
          { item_pk: 1, sku: `FZ${world.shop.shopPk}-5`, quantity: 1, price: 10 },
          { item_pk: 2, sku: `FZ${world.shop.shopPk}-4`, quantity: 2, price: 3 },
        ],
      };
    default:
      return undefined;
  }
}

function realPks(value: unknown, pool: (string | number)[], r: Rng, p: number): void {
  if (Array.isArray(value)) value.forEach((v) => realPks(v, pool, r, p));
  else if (value !== null && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    if (typeof o.pk === 'number' && pool.length > 0 && chance(r, p)) o.pk = pick(r, pool);
    for (const v of Object.values(o)) if (typeof v === 'object') realPks(v, pool, r, p);
  }
}

export interface BuildContext {
  world: World;
  seed: number;
  /** The products POST body schema: what the catalog-webhook connector takes. */
  products: JsonSchema | undefined;
  /** The methods each OpenAPI path documents. */
  methods: Map<string, Set<string>>;
}

/** Request number `n` of `op`; `force` fixes its kind (the security checks send valid ones). */
export function buildRequest(n: number, op: Operation, { world, seed, products, methods }: BuildContext, force?: Kind): FuzzRequest {
  const r = rngOf(seed ^ Math.imul(n + 1, 0x9e3779b1));
  const otherMethods = ALLOWED_ELSEWHERE.filter((m) => !(methods.get(op.path)?.has(m) ?? false));
  let kind = force ?? kindOf(r);
  if (kind === 'method' && otherMethods.length === 0) kind = 'valid';
  const opCount = [...methods.values()].reduce((sum, m) => sum + m.size, 0);
  const params = pathParams(op, world, r, kind === 'path', kind === 'valid', n, opCount);
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => params[name] ?? '1');
  // A label is a PDF or ZPL; a valid GET opens the signed link a POST answered.
  const label = op.path.endsWith('/label/');
  const format = pick(r, ['pdf', 'zpl'] as const);
  const query = label && op.method === 'GET' && kind === 'valid' ? `?${world.labelLinks[format]}` : queryString(op, r, kind === 'query');
  const url = `${world.daemon.url}${path}${query}`;
  // (An undocumented method is answered 405 problem JSON, so that request asks for JSON.)
  const headers: Record<string, string> = { accept: label && kind !== 'method' ? `application/${format}` : 'application/json' };
  if (op.auth === 'shop') headers.authorization = `Token ${world.shop.key}`;
  if (op.auth === 'admin') headers.authorization = `Bearer ${ADMIN_TOKEN}`;
  const hasBody =
    op.body !== undefined ||
    op.path.startsWith('/connectors/') ||
    op.path.startsWith('/webhooks/') ||
    (op.method !== 'GET' && chance(r, 0.2));
  let body: string | undefined;
  if (hasBody) {
    headers['content-type'] = 'application/json';
    const valid =
      (kind === 'valid' ? recipe(op, world, params, n, `${seed}-${n}`) : undefined) ?? validBody(op, world, r, params, products);
    body = JSON.stringify(kind === 'body' ? mutate(valid, r) : valid) ?? 'null';
    if (kind === 'json') body = pick(r, BROKEN_JSON);
  }
  // A valid request is signed right, now, under a message id of its own; the others sometimes
  // repeat an id, sign with a wrong secret or an hour ago.
  const valid = kind === 'valid';
  if (op.path.startsWith('/connectors/') && body !== undefined) {
    const id = !valid && chance(r, 0.2) ? `msg_fuzz_${int(r, 0, 5)}` : `msg_fuzz_${seed}_${n}`;
    Object.assign(
      headers,
      signedHeaders(
        valid || chance(r, 0.8) ? WEBHOOK_SECRET : 'whsec_d3Jvbmc=',
        id,
        body,
        valid || chance(r, 0.9) ? Date.now() : Date.now() - 3_600_000,
      ),
    );
  }
  if (op.path.startsWith('/webhooks/carriers/') && body !== undefined) {
    headers['aftership-hmac-sha256'] = aftershipSignature(valid || chance(r, 0.85) ? AFTERSHIP_SECRET : 'wrong-secret', Buffer.from(body));
  }
  // Keys are reused across bodies (a replay, or 422) except by valid requests: each its own key.
  if (op.method !== 'GET' && chance(r, 0.25)) headers['idempotency-key'] = valid ? `fz-${seed}-${n}` : `fz-${int(r, 0, 30)}`;
  const credentials = kind === 'headers' ? breakHeaders(headers, op, world, r) : undefined;
  const method = kind === 'method' ? pick(r, otherMethods) : op.method;
  return { n, op, kind, method, url, headers, body: method === 'GET' ? undefined : body, credentials };
}

/** Breaks one header; says when the credentials were removed or made wrong. */
function breakHeaders(headers: Record<string, string>, op: Operation, world: World, r: Rng): FuzzRequest['credentials'] {
  const right = headers.authorization;
  switch (int(r, 0, 9)) {
    case 0:
      delete headers.authorization;
      return right === undefined ? undefined : 'missing';
    case 1:
      headers.authorization = pick(r, [
        'Token ',
        'Token wrong',
        `Token ${world.shop.key}x`,
        `Bearer ${world.shop.key}`,
        'Basic YTpi',
        'Token a b',
        `Bearer ${ADMIN_TOKEN}`,
        `Token ${ADMIN_TOKEN}`,
      ]);
      return right === undefined || headers.authorization === right ? undefined : 'wrong';
    case 2:
      headers.authorization = `Token ${world.other.key}`;
      // Another shop's key is a key (its paths answer 404); to the admin API it is a wrong one.
      return op.auth === 'admin' ? 'wrong' : undefined;
    case 3:
      headers.accept = pick(r, ['text/html', 'application/xml', 'application/json;q=0', 'image/*', '*/*;q=0, text/plain']);
      break;
    case 4:
      if (headers['content-type'] !== undefined)
        headers['content-type'] = pick(r, [
          'text/plain',
          'application/xml',
          'multipart/form-data; boundary=x',
          'application/x-www-form-urlencoded',
          'application/json; charset=latin1',
          'application/jsonx',
        ]);
      break;
    case 5:
      headers['idempotency-key'] = pick(r, ['', 'k'.repeat(300), '\u00e9t\u00e9', ' ']);
      break;
    case 6:
      headers['x-request-id'] = pick(r, ['../../x', 'a'.repeat(500), 'ok-id-1', '%00']);
      break;
    case 7:
      delete headers['content-type'];
      break;
    case 8:
      headers.authorization = `Token ${world.shop.key.toUpperCase()}`;
      return right === undefined || headers.authorization === right ? undefined : 'wrong';
    default:
      headers.accept = 'application/problem+json';
  }
  return undefined;
}
