// The one module that reads settings from the environment: loadConfig (validated once, frozen;
// the CLI hands it process.env, with its own defaults added, and the Config to everything else)
// and the connectors' secrets their config file names (secretFromEnv, read when a run needs
// them). Child processes (embedded Postgres) inherit the environment as it is.
import { isIP } from 'node:net';
import path from 'node:path';
import type { ErrorObject } from 'ajv';
import { Type, type Static } from 'typebox';
import { validate } from './validation/ajv.ts';

const LogLevel = Type.Union(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)));

// A host name, an IPv4 address or CIDR, or an IPv6 address or CIDR (the IPv6 parser at start-up
// refuses what this pattern lets through).
const ALLOW_ENTRY =
  '^((?=[^/]*[A-Za-z])[A-Za-z0-9-]+(\\.[A-Za-z0-9-]+)*\\.?|((25[0-5]|2[0-4]\\d|1?\\d?\\d)\\.){3}(25[0-5]|2[0-4]\\d|1?\\d?\\d)(/(3[0-2]|[12]?\\d))?|[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*(/(12[0-8]|1[01]\\d|[1-9]?\\d))?)$';

export const ConfigSchema = Type.Object({
  /** postgres://... ; unset: an embedded Postgres under dataDir. */
  databaseUrl: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
  dataDir: Type.String({ minLength: 1 }),
  host: Type.String({ minLength: 1 }),
  port: Type.Integer({ minimum: 0, maximum: 65535 }),
  /** The {base_url} of Location headers; unset: derived from each request. */
  publicUrl: Type.Optional(Type.String({ pattern: '^https?://[^/]+(/.*)?$' })),
  logLevel: LogLevel,
  /** json: one JSON object per line; pretty: one readable line per entry; auto (default): pretty when the output is a terminal. */
  logFormat: Type.Union([Type.Literal('auto'), Type.Literal('pretty'), Type.Literal('json')]),
  adminToken: Type.Optional(Type.String({ minLength: 16 })),
  connectorsFile: Type.String({ minLength: 1 }),
  /** Largest request body, bytes. 1,000 products are ~1.5 MB; default 64 MiB. */
  bodyLimit: Type.Integer({ minimum: 1024 }),
  /** Connections of the application pool (the job queue holds its own few). */
  dbPoolMax: Type.Integer({ minimum: 2, maximum: 500 }),
  /**
   * The bound on each database call, ms: waiting for a connection, connecting, one statement.
   * A request whose database does not answer within it gets 503 + Retry-After. Long work
   * (applying a feed's chunk, migrations) has its own limits (FEED_CHUNK_TIME_LIMIT_MS, MIGRATION_TIME_LIMIT_MS).
   */
  dbTimeoutMs: Type.Integer({ minimum: 100, maximum: 600_000 }),
  /**
   * Event-loop delay, ms, over which the API sheds load (503 "overloaded" + Retry-After);
   * 0 = never shed (tests that are not about shedding; a process behind its own load balancer).
   */
  maxEventLoopDelayMs: Type.Integer({ minimum: 0, maximum: 600_000 }),
  /** Bound on graceful shutdown, ms: in-flight requests and running jobs get this long. */
  shutdownTimeoutMs: Type.Integer({ minimum: 0 }),
  /** Feed jobs run at once per worker process. */
  workerConcurrency: Type.Integer({ minimum: 1, maximum: 64 }),
  /** Writes (POST/PUT/DELETE) per API key per minute before 429; 0 = no limit. Per process. */
  rateLimitPerMinute: Type.Integer({ minimum: 0 }),
  /** Internal webhook destinations allowed anyway: host names, IP addresses, CIDRs. */
  webhookAllowPrivate: Type.Array(Type.String({ pattern: ALLOW_ENTRY })),
  /**
   * Proxies whose X-Forwarded-Proto/-For/-Host are believed (Fastify trustProxy): false (the
   * default: none), true (every hop), a number of hops, or addresses and CIDRs.
   */
  trustProxy: Type.Union([Type.Boolean(), Type.Integer({ minimum: 1 }), Type.Array(Type.String({ minLength: 1 }), { minItems: 1 })]),
  /** Items (products, variations, image refs) one catalog write may carry; more: 413 before validation. */
  maxItemsPerRequest: Type.Integer({ minimum: 1 }),
  /** How long one webhook delivery may take (connect, send, the answer), ms; default 15 s. */
  // At most 30 s: an attempt must end well within the job's 120 s before it counts as crashed.
  webhookTimeoutMs: Type.Integer({ minimum: 100, maximum: 30_000 }),
  /**
   * The key that seals shops' webhook secrets in the database (any text of 32+ characters);
   * unset: a random one kept in <dataDir>/secret.key.
   */
  secretKey: Type.Optional(Type.String({ minLength: 32 })),
});
export type Config = Readonly<Static<typeof ConfigSchema>>;

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

type Env = Record<string, string | undefined>;

/** Env name of each config field, for messages that name what the user set (and the README test). */
export const envNames: Record<keyof Static<typeof ConfigSchema>, string> = {
  databaseUrl: 'DATABASE_URL',
  dataDir: 'WAYBILL_DATA_DIR',
  host: 'HOST',
  port: 'PORT',
  publicUrl: 'PUBLIC_URL',
  logLevel: 'LOG_LEVEL',
  logFormat: 'LOG_FORMAT',
  adminToken: 'WAYBILL_ADMIN_TOKEN',
  connectorsFile: 'WAYBILL_CONNECTORS',
  bodyLimit: 'WAYBILL_BODY_LIMIT',
  dbPoolMax: 'WAYBILL_DB_POOL_MAX',
  dbTimeoutMs: 'WAYBILL_DB_TIMEOUT_MS',
  maxEventLoopDelayMs: 'WAYBILL_MAX_EVENT_LOOP_DELAY_MS',
  shutdownTimeoutMs: 'WAYBILL_SHUTDOWN_TIMEOUT_MS',
  workerConcurrency: 'WAYBILL_WORKER_CONCURRENCY',
  rateLimitPerMinute: 'WAYBILL_RATE_LIMIT',
  webhookAllowPrivate: 'WAYBILL_WEBHOOK_ALLOW_PRIVATE',
  trustProxy: 'WAYBILL_TRUST_PROXY',
  maxItemsPerRequest: 'WAYBILL_MAX_ITEMS',
  webhookTimeoutMs: 'WAYBILL_WEBHOOK_TIMEOUT_MS',
  secretKey: 'WAYBILL_SECRET_KEY',
};

/** One wrong field of a configuration value: its JSON pointer (relative to the value) and what it must be. */
export interface ConfigFault {
  pointer: string;
  rule: string;
}

const plural = (n: unknown, one: string): string => `${String(n)} ${one}${n === 1 ? '' : 's'}`;

/** Ajv's message of one error, as a person setting up the daemon reads it. */
function ruleOf(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'minLength':
      return p.limit === 1 ? 'must not be empty' : `must be at least ${plural(p.limit, 'character')}`;
    case 'maxLength':
      return `must be at most ${plural(p.limit, 'character')}`;
    case 'minItems':
      return p.limit === 1 ? 'must not be empty' : `must list at least ${plural(p.limit, 'item')}`;
    case 'maxItems':
      return `must list at most ${plural(p.limit, 'item')}`;
    case 'enum':
      return `must be one of ${(p.allowedValues as unknown[]).map(String).join(', ')}`;
    case 'const':
      return `must be ${JSON.stringify(p.allowedValue)}`;
    // A pattern is read by its schema's description when it has one ("lower-case letters, digits...").
    case 'pattern':
      return typeof (e.parentSchema as { description?: unknown } | undefined)?.description === 'string'
        ? `must be ${(e.parentSchema as { description: string }).description}`
        : (e.message ?? 'is invalid');
    default:
      return e.message ?? 'is invalid';
  }
}

/**
 * Ajv's errors of a configuration value (src/validation/ajv.ts) as one fault per field, in
 * order: a missing field "is required", an unknown one "is not a known option", a failed union
 * says its branches at once ("must be one of csv, json, xml", "must be >= 1 or null").
 */
export function configFaults(errors: ErrorObject[]): ConfigFault[] {
  const unions = errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf');
  const inUnion = (e: ErrorObject, u: ErrorObject): boolean => e.schemaPath.startsWith(`${u.schemaPath}/`);
  const out = new Map<string, string>();
  for (const e of errors) {
    if (unions.some((u) => u !== e && inUnion(e, u))) continue;
    const p = e.params as Record<string, unknown>;
    let pointer = e.instancePath;
    let rule: string;
    if (e.keyword === 'required') {
      pointer += `/${String(p.missingProperty)}`;
      rule = 'is required';
    } else if (e.keyword === 'additionalProperties') {
      pointer += `/${String(p.additionalProperty)}`;
      rule = 'is not a known option';
    } else if (unions.includes(e)) {
      // Each branch's first error, e.g. "must be >= 1" and "must be null".
      const branches = new Map<string, ErrorObject>();
      for (const b of errors) {
        const branch = inUnion(b, e) ? /^\/(\d+)/.exec(b.schemaPath.slice(e.schemaPath.length))?.[1] : undefined;
        if (branch !== undefined && !branches.has(branch)) branches.set(branch, b);
      }
      const firsts = [...branches.values()];
      const rules = [...new Set(firsts.map(ruleOf))];
      rule =
        firsts.length === 0
          ? ruleOf(e)
          : firsts.every((b) => b.keyword === 'const')
            ? `must be one of ${firsts.map((b) => String((b.params as { allowedValue: unknown }).allowedValue)).join(', ')}`
            : rules.every((r) => r.startsWith('must be '))
              ? `must be ${rules.map((r) => r.slice('must be '.length)).join(' or ')}`
              : rules.join(', or ');
    } else {
      rule = ruleOf(e);
    }
    if (!out.has(pointer)) out.set(pointer, rule);
  }
  return [...out].map(([pointer, rule]) => ({ pointer, rule }));
}

const blank = (v: string | undefined): string | undefined => (v === undefined || v.trim() === '' ? undefined : v.trim());

/** Integers stay strings when they do not parse, so the schema reports them with the value given. */
const int = (v: string | undefined, fallback: number): number | string => {
  const s = blank(v);
  if (s === undefined) return fallback;
  return /^-?\d+$/.test(s) ? Number(s) : s;
};

/** proxy-addr's names of address ranges, usable in WAYBILL_TRUST_PROXY. */
const RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

const isAddressOrCidr = (s: string): boolean => {
  if (RANGE_NAMES.has(s)) return true;
  const [address = '', bits, extra] = s.split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return false;
  return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
};

/** WAYBILL_TRUST_PROXY: unset or false, true, a number of hops, or addresses/CIDRs separated by commas. */
const trustProxyOf = (v: string | undefined): boolean | number | string[] | string => {
  const s = blank(v)?.toLowerCase();
  if (s === undefined || s === 'false') return false;
  if (s === 'true') return true;
  if (/^\d+$/.test(s)) return Number(s) === 0 ? false : Number(s);
  const list = s
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x !== '');
  return list.length > 0 && list.every(isAddressOrCidr) ? list : s;
};

export function loadConfig(env: Env = process.env, cwd: string = process.cwd()): Config {
  const raw = {
    databaseUrl: blank(env.DATABASE_URL),
    dataDir: path.resolve(cwd, blank(env.WAYBILL_DATA_DIR) ?? 'data'),
    host: blank(env.HOST) ?? '127.0.0.1',
    port: int(env.PORT, 8080),
    publicUrl: blank(env.PUBLIC_URL)?.replace(/\/+$/, ''),
    logLevel: blank(env.LOG_LEVEL)?.toLowerCase() ?? 'info',
    logFormat: blank(env.LOG_FORMAT)?.toLowerCase() ?? 'auto',
    adminToken: blank(env.WAYBILL_ADMIN_TOKEN),
    connectorsFile: path.resolve(cwd, blank(env.WAYBILL_CONNECTORS) ?? 'config/connectors.json'),
    bodyLimit: int(env.WAYBILL_BODY_LIMIT, 64 * 1024 * 1024),
    dbPoolMax: int(env.WAYBILL_DB_POOL_MAX, 20),
    dbTimeoutMs: int(env.WAYBILL_DB_TIMEOUT_MS, 5_000),
    maxEventLoopDelayMs: int(env.WAYBILL_MAX_EVENT_LOOP_DELAY_MS, 2_000),
    shutdownTimeoutMs: int(env.WAYBILL_SHUTDOWN_TIMEOUT_MS, 25_000),
    workerConcurrency: int(env.WAYBILL_WORKER_CONCURRENCY, 4),
    rateLimitPerMinute: int(env.WAYBILL_RATE_LIMIT, 0),
    webhookAllowPrivate: (blank(env.WAYBILL_WEBHOOK_ALLOW_PRIVATE) ?? '')
      .split(',')
      .map((e) => e.trim())
      .filter((e) => e !== ''),
    trustProxy: trustProxyOf(env.WAYBILL_TRUST_PROXY),
    maxItemsPerRequest: int(env.WAYBILL_MAX_ITEMS, 10_000),
    webhookTimeoutMs: int(env.WAYBILL_WEBHOOK_TIMEOUT_MS, 15_000),
    secretKey: blank(env.WAYBILL_SECRET_KEY),
  };
  for (const key of Object.keys(raw) as (keyof typeof raw)[]) if (raw[key] === undefined) delete raw[key];

  // Each field on its own, so every problem is reported, each by the variable the user set.
  const problems: string[] = [];
  for (const [field, schema] of Object.entries(ConfigSchema.properties)) {
    const value = (raw as Record<string, unknown>)[field];
    if (value === undefined) continue;
    const first = configFaults(validate(schema, value))[0];
    if (first === undefined) continue;
    const name = envNames[field as keyof typeof envNames];
    const rule =
      field === 'logLevel'
        ? 'must be one of fatal, error, warn, info, debug, trace, silent'
        : field === 'webhookAllowPrivate'
          ? 'must list host names, IP addresses or CIDRs, comma-separated'
          : field === 'trustProxy'
            ? 'must be true, false, a number of proxies, or IP addresses/CIDRs separated by commas'
            : first.rule;
    // A secret is never echoed, not even a wrong one: its length says enough.
    const secret = field === 'secretKey' || field === 'adminToken';
    problems.push(`${name}: ${rule} (got ${secret ? `${String(value).length} characters` : JSON.stringify(value)})`);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(raw as Static<typeof ConfigSchema>);
}

/**
 * A secret named by an environment variable (connectors' `api_key_env`, `secret_env`): the
 * config file names the variable, never the secret. undefined when unset or blank.
 */
export function secretFromEnv(name: string, env: Env = process.env): string | undefined {
  return blank(env[name]);
}
