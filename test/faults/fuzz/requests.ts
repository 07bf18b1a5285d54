// Turns the OpenAPI document into operations, and an operation plus a request number into one
// request: valid, or broken in its body, path, query string or headers.
import { signedHeaders } from '../../../src/webhooks/signature.ts';
import { BROKEN_JSON, GARBAGE, HOSTILE_STRINGS, chance, int, mutate, pick, rngOf, validOf, type JsonSchema, type Rng } from './generate.ts';
import { aftershipSignature } from '../../../connectors/tracking-aftership/client.ts';
import { ADMIN_TOKEN, AFTERSHIP_SECRET, WEBHOOK_SECRET, type World } from './world.ts';

export interface Operation {
  id: string;
  method: string;
  path: string;
  params: { name: string; in: string; schema: JsonSchema; required?: boolean }[];
  body: JsonSchema | undefined;
  responses: Record<string, { content?: Record<string, { schema: JsonSchema }> }>;
  auth: 'shop' | 'admin' | 'none';
}

interface OpenApi { paths: Record<string, Record<string, { parameters?: Operation['params']; requestBody?: { content: Record<string, { schema: JsonSchema }> }; responses?: Operation['responses'] }>> }

export function operationsOf(doc: OpenApi): Operation[] {
  const out: Operation[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const auth = path.startsWith('/admin/') ? 'admin' : path.startsWith('/shops/') || path.startsWith('/feeds/') ? 'shop' : 'none';
      out.push({
        id: `${method.toUpperCase()} ${path}`, method: method.toUpperCase(), path, params: op.parameters ?? [],
        body: op.requestBody?.content['application/json']?.schema, responses: op.responses ?? {}, auth,
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
}

const WEIGHTS: [Kind, number][] = [['valid', 40], ['body', 20], ['json', 5], ['path', 10], ['query', 8], ['headers', 15], ['method', 2]];
const kindOf = (r: Rng): Kind => {
  let x = r() * 100;
  for (const [k, w] of WEIGHTS) if ((x -= w) < 0) return k;
  return 'valid';
};

const BAD_IDS = ['0', '-1', 'abc', '1.5', '1e3', '99999999999999999999', '9223372036854775808', '%00', '%2e%2e', '..%2F..%2F', '%F0%9F%92%A5', '%EF%BC%91', '%20', "1'%3B--", '%24%7B1%7D', 'x'.repeat(300), '2147483648'];
const ALLOWED_ELSEWHERE = ['PATCH', 'PUT', 'DELETE', 'GET', 'POST'];

/** A valid value of a path parameter, from the world's real data. */
function paramValue(name: string, world: World, r: Rng, picked: Record<string, string | number>): string | number {
  if (name === 'variation' && picked.product !== undefined) {
    const match = world.variations.filter(([p]) => p === picked.product);
    if (match.length > 0) return pick(r, match)[1];
  }
  return pick(r, world.ids[name] ?? [int(r, 1, 5)]);
}

function pathParams(op: Operation, world: World, r: Rng, broken: boolean): Record<string, string> {
  const picked: Record<string, string | number> = {};
  const names = op.params.filter((p) => p.in === 'path').map((p) => p.name);
  if (names.includes('queue') && names.includes('id') && chance(r, 0.8)) [picked.queue, picked.id] = pick(r, world.jobs);
  if (names.includes('product') && names.includes('variation') && chance(r, 0.9)) {
    const [p, v] = pick(r, world.variations);
    picked.product = p;
    picked.variation = v;
  }
  const pool = (name: string): string => (name !== 'name' ? name : op.path.endsWith('/disable') ? 'disable' : op.path.startsWith('/webhooks/carriers/') ? 'carrierHook' : name);
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
    if (broken && chance(r, 0.5)) q.push(`${p.name}=${encodeURIComponent(String(pick(r, [...GARBAGE, ...HOSTILE_STRINGS].filter((g) => typeof g !== 'object' && String(g).length < 2000))))}`);
    else if (chance(r, 0.4)) q.push(`${p.name}=${encodeURIComponent(String(validOf(p.schema, r)))}`);
  }
  if (broken) q.push(pick(r, ['page=0', 'page_size=100000', 'limit=-5', 'page=abc', 'x=%00', '%zz=1', 'state=bogus', 'hours=999999']));
  return q.length === 0 ? '' : `?${q.join('&')}`;
}

/** A valid body of the operation (orders' actions aim at the order's real items). */
function validBody(op: Operation, world: World, r: Rng, params: Record<string, string>, products: JsonSchema | undefined): unknown {
  if (op.path.startsWith('/connectors/')) return validOf(products, r);
  if (op.path.startsWith('/webhooks/carriers/')) {
    // An AfterShip tracking update, shaped like its documented webhook, for a shipped order or not.
    return { event_id: `evt-${int(r, 0, 2 ** 30)}`, event: pick(r, ['tracking_update', 'tracking_update', 'edd_revise']), msg: {
      tracking_number: pick(r, ['JD0001', 'fz-1', '1Z9999W99999999999']), slug: pick(r, ['dhl', 'ups']), tag: pick(r, ['InTransit', 'Delivered', 'Exception', 'OutForDelivery']),
      checkpoints: [{ tag: 'InTransit', checkpoint_time: '2026-11-21T10:00:00+01:00', message: 'Arrived at hub' }] } };
  }
  const body = validOf(op.body, r) as Record<string, unknown>;
  // `pk` members name real variations, images or products most of the time.
  const pool = op.path.endsWith('/variations/') ? world.ids.variation : op.path.endsWith('/images/') ? world.ids.image : world.ids.product;
  realPks(body, pool ?? [], r);
  const order = world.orders.find((o) => String(o.order) === params.order);
  if (order !== undefined && body !== null && typeof body === 'object') {
    if (chance(r, 0.5)) delete body.items;
    else body.items = order.items.filter(() => chance(r, 0.7)).map((item_pk) => ({ item_pk }));
    if (Array.isArray(body.items) && body.items.length === 0) delete body.items;
  }
  return body;
}

function realPks(value: unknown, pool: (string | number)[], r: Rng): void {
  if (Array.isArray(value)) value.forEach((v) => realPks(v, pool, r));
  else if (value !== null && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    if (typeof o.pk === 'number' && pool.length > 0 && chance(r, 0.7)) o.pk = pick(r, pool);
    for (const v of Object.values(o)) if (typeof v === 'object') realPks(v, pool, r);
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
  const params = pathParams(op, world, r, kind === 'path');
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => params[name] ?? '1');
  const url = `${world.daemon.url}${path}${queryString(op, r, kind === 'query')}`;
  const headers: Record<string, string> = { accept: 'application/json' };
  if (op.auth === 'shop') headers.authorization = `Token ${world.shop.key}`;
  if (op.auth === 'admin') headers.authorization = `Bearer ${ADMIN_TOKEN}`;
  const hasBody = op.body !== undefined || op.path.startsWith('/connectors/') || op.path.startsWith('/webhooks/') || (op.method !== 'GET' && chance(r, 0.2));
  let body: string | undefined;
  if (hasBody) {
    headers['content-type'] = 'application/json';
    const valid = validBody(op, world, r, params, products);
    body = JSON.stringify(kind === 'body' ? mutate(valid, r) : valid) ?? 'null';
    if (kind === 'json') body = pick(r, BROKEN_JSON);
  }
  if (op.path.startsWith('/connectors/') && body !== undefined) {
    const id = chance(r, 0.2) ? `msg_fuzz_${int(r, 0, 5)}` : `msg_fuzz_${seed}_${n}`;
    Object.assign(headers, signedHeaders(chance(r, 0.8) ? WEBHOOK_SECRET : 'whsec_d3Jvbmc=', id, body, chance(r, 0.9) ? Date.now() : Date.now() - 3_600_000));
  }
  if (op.path.startsWith('/webhooks/carriers/') && body !== undefined) {
    headers['aftership-hmac-sha256'] = aftershipSignature(chance(r, 0.85) ? AFTERSHIP_SECRET : 'wrong-secret', Buffer.from(body));
  }
  if (op.method !== 'GET' && chance(r, 0.25)) headers['idempotency-key'] = `fz-${int(r, 0, 30)}`;
  if (kind === 'headers') breakHeaders(headers, world, r);
  const method = kind === 'method' ? pick(r, otherMethods) : op.method;
  return { n, op, kind, method, url, headers, body: method === 'GET' ? undefined : body };
}

function breakHeaders(headers: Record<string, string>, world: World, r: Rng): void {
  switch (int(r, 0, 9)) {
    case 0: delete headers.authorization; break;
    case 1: headers.authorization = pick(r, ['Token ', 'Token wrong', `Token ${world.shop.key}x`, `Bearer ${world.shop.key}`, 'Basic YTpi', 'Token a b', `Bearer ${ADMIN_TOKEN}`, `Token ${ADMIN_TOKEN}`]); break;
    case 2: headers.authorization = `Token ${world.other.key}`; break;
    case 3: headers.accept = pick(r, ['text/html', 'application/xml', 'application/json;q=0', 'image/*', '*/*;q=0, text/plain']); break;
    case 4: if (headers['content-type'] !== undefined) headers['content-type'] = pick(r, ['text/plain', 'application/xml', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded', 'application/json; charset=latin1', 'application/jsonx']); break;
    case 5: headers['idempotency-key'] = pick(r, ['', 'k'.repeat(300), '\u00e9t\u00e9', ' ']); break;
    case 6: headers['x-request-id'] = pick(r, ['../../x', 'a'.repeat(500), 'ok-id-1', '%00']); break;
    case 7: delete headers['content-type']; break;
    case 8: headers.authorization = `Token ${world.shop.key.toUpperCase()}`; break;
    default: headers.accept = 'application/problem+json';
  }
}
