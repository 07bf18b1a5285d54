// The only reader of process.env. Everything else receives a frozen Config.
import path from 'node:path';
import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';

const LogLevel = Type.Union(
  ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
);

export const ConfigSchema = Type.Object({
  /** postgres://... ; unset: an embedded Postgres under dataDir. */
  databaseUrl: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
  dataDir: Type.String({ minLength: 1 }),
  host: Type.String({ minLength: 1 }),
  port: Type.Integer({ minimum: 0, maximum: 65535 }),
  /** The {base_url} of Location headers; unset: derived from each request. */
  publicUrl: Type.Optional(Type.String({ pattern: '^https?://[^/]+(/.*)?$' })),
  logLevel: LogLevel,
  adminToken: Type.Optional(Type.String({ minLength: 16 })),
  connectorsFile: Type.String({ minLength: 1 }),
  /** Largest request body, bytes. 1,000 products are ~1.5 MB; default 64 MiB. */
  bodyLimit: Type.Integer({ minimum: 1024 }),
  /** Connections of the application pool (the job queue holds its own few). */
  dbPoolMax: Type.Integer({ minimum: 2, maximum: 500 }),
  /** Bound on graceful shutdown, ms: in-flight requests and running jobs get this long. */
  shutdownTimeoutMs: Type.Integer({ minimum: 0 }),
  /** Feed jobs run at once per worker process. */
  workerConcurrency: Type.Integer({ minimum: 1, maximum: 64 }),
  /** Writes (POST/PUT/DELETE) per API key per minute before 429; 0 = no limit. Per process. */
  rateLimitPerMinute: Type.Integer({ minimum: 0 }),
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

/** Env name of each config field, for messages that name what the user set. */
const envNames: Record<keyof Static<typeof ConfigSchema>, string> = {
  databaseUrl: 'DATABASE_URL',
  dataDir: 'WAYBILL_DATA_DIR',
  host: 'HOST',
  port: 'PORT',
  publicUrl: 'PUBLIC_URL',
  logLevel: 'LOG_LEVEL',
  adminToken: 'WAYBILL_ADMIN_TOKEN',
  connectorsFile: 'WAYBILL_CONNECTORS',
  bodyLimit: 'WAYBILL_BODY_LIMIT',
  dbPoolMax: 'WAYBILL_DB_POOL_MAX',
  shutdownTimeoutMs: 'WAYBILL_SHUTDOWN_TIMEOUT_MS',
  workerConcurrency: 'WAYBILL_WORKER_CONCURRENCY',
  rateLimitPerMinute: 'WAYBILL_RATE_LIMIT',
};

const blank = (v: string | undefined): string | undefined => (v === undefined || v.trim() === '' ? undefined : v.trim());

/** Integers stay strings when they do not parse, so the schema reports them with the value given. */
const int = (v: string | undefined, fallback: number): number | string => {
  const s = blank(v);
  if (s === undefined) return fallback;
  return /^-?\d+$/.test(s) ? Number(s) : s;
};

export function loadConfig(env: Env = process.env, cwd: string = process.cwd()): Config {
  const raw = {
    databaseUrl: blank(env.DATABASE_URL),
    dataDir: path.resolve(cwd, blank(env.WAYBILL_DATA_DIR) ?? 'data'),
    host: blank(env.HOST) ?? '127.0.0.1',
    port: int(env.PORT, 8080),
    publicUrl: blank(env.PUBLIC_URL)?.replace(/\/+$/, ''),
    logLevel: blank(env.LOG_LEVEL)?.toLowerCase() ?? 'info',
    adminToken: blank(env.WAYBILL_ADMIN_TOKEN),
    connectorsFile: path.resolve(cwd, blank(env.WAYBILL_CONNECTORS) ?? 'config/connectors.json'),
    bodyLimit: int(env.WAYBILL_BODY_LIMIT, 64 * 1024 * 1024),
    dbPoolMax: int(env.WAYBILL_DB_POOL_MAX, 20),
    shutdownTimeoutMs: int(env.WAYBILL_SHUTDOWN_TIMEOUT_MS, 25_000),
    workerConcurrency: int(env.WAYBILL_WORKER_CONCURRENCY, 2),
    rateLimitPerMinute: int(env.WAYBILL_RATE_LIMIT, 0),
  };
  for (const key of Object.keys(raw) as (keyof typeof raw)[]) if (raw[key] === undefined) delete raw[key];

  // Each field on its own, so every problem is reported, each by the variable the user set.
  const problems: string[] = [];
  for (const [field, schema] of Object.entries(ConfigSchema.properties)) {
    const value = (raw as Record<string, unknown>)[field];
    if (value === undefined || Value.Check(schema, value)) continue;
    const name = envNames[field as keyof typeof envNames];
    const first = Value.Errors(schema, value)[0];
    const rule = field === 'logLevel' ? 'must be one of fatal, error, warn, info, debug, trace, silent' : (first?.message ?? 'is invalid');
    problems.push(`${name}: ${rule} (got ${JSON.stringify(value)})`);
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
