// The reliability suite's tools: a fresh database (on DATABASE_URL's server, or an embedded
// one in a temp folder), daemons as child processes, and a PASS/FAIL line per scenario.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbedded } from '../../src/embedded-postgres/embedded-postgres.ts';
import { databaseUrl } from '../helpers/db-url.ts';
import { runCli, spawnDaemon, type DaemonProcess } from '../helpers/cli.ts';
import { until as waitUntil } from '../helpers/until.ts';

/**
 * The database env of a second daemon beside one already running on `target`: embedded, the
 * shared server by its URL (a second full daemon on one data folder is refused), else the
 * target's own env.
 */
export async function secondDaemonEnv(target: Target): Promise<Record<string, string>> {
  return target.mode === 'embedded' ? { ...target.env, DATABASE_URL: await target.connectionString() } : target.env;
}

export interface Target {
  /** Env of a daemon or CLI command on this target. */
  env: Record<string, string>;
  mode: 'external' | 'embedded';
  /** A client on the target's database, for checks (opened on first use). */
  query<R extends pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<R[]>;
  /** The database's URL (embedded: its server, started when needed). */
  connectionString(): Promise<string>;
  dataDir: string | null;
  close(): Promise<void>;
}

/** A new empty target (embedded: initialised by `waybill init`); its daemons migrate it on start. */
export async function freshTarget(): Promise<Target> {
  const tag = randomBytes(4).toString('hex');
  const external = process.env.DATABASE_URL;
  let url: string | null = null;
  let dataDir: string | null = null;
  let env: Record<string, string>;
  if (external !== undefined && external !== '') {
    const admin = new pg.Client({ connectionString: external });
    await admin.connect();
    await admin.query(`create database wb_fault_${tag}`);
    await admin.end();
    url = databaseUrl(external, `wb_fault_${tag}`);
    env = { DATABASE_URL: url };
  } else {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'waybill-fault-'));
    env = { WAYBILL_DATA_DIR: dataDir };
    // As the README has a user do: commands other than init and start never create a database.
    const init = await runCli(['init'], env);
    if (init.code !== 0) throw new Error(`waybill init failed: ${init.stderr}`);
  }
  let client: pg.Client | null = null;
  const connectionString = async (): Promise<string> => url ?? (await startEmbedded({ dataDir: dataDir! })).connectionString;
  return {
    env,
    mode: url === null ? 'embedded' : 'external',
    dataDir,
    connectionString,
    async query(sql, params) {
      if (client === null) {
        client = new pg.Client({ connectionString: await connectionString() });
        client.on('error', () => undefined);
        await client.connect();
      }
      return (await client.query(sql, params)).rows;
    },
    async close() {
      await (client as pg.Client | null)?.end().catch(() => undefined);
      if (url !== null) {
        const admin = new pg.Client({ connectionString: external });
        await admin.connect();
        await admin.query(`drop database if exists wb_fault_${tag} with (force)`).catch(() => undefined);
        await admin.end();
      } else if (dataDir !== null) {
        const handle = await startEmbedded({ dataDir }).catch(() => null);
        await handle?.release({ force: true }).catch(() => undefined);
        await fs.rm(dataDir, { recursive: true, force: true });
      }
    },
  };
}

export interface ShopKey {
  shopPk: number;
  key: string;
  headers: Record<string, string>;
}

/** A shop and a key, made with the CLI as a user would (`env`: more of its environment). */
export async function shopWithKey(target: Target, extra: string[] = [], env: Record<string, string> = {}): Promise<ShopKey> {
  const shop = await runCli(['shops', 'create', '--name', 'Fault shop', ...extra, '--json'], { ...target.env, ...env });
  if (shop.code !== 0) throw new Error(`shops create failed: ${shop.stderr}`);
  const shopPk = shop.json<{ pk: number }>().pk;
  const key = (await runCli(['keys', 'create', '--shop', String(shopPk), '--json'], target.env)).json<{ key: string }>().key;
  return { shopPk, key, headers: { authorization: `Token ${key}`, 'content-type': 'application/json', accept: 'application/json' } };
}

export { spawnDaemon, runCli, type DaemonProcess };

/** Scenarios' webhook receivers listen on 127.0.0.1, which waybill refuses unless allowed. */
export const LOCAL_WEBHOOKS = { WAYBILL_WEBHOOK_ALLOW_PRIVATE: '127.0.0.1' };

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The shared wait, with the scenarios' longer defaults: whole daemons on a loaded machine. */
export const until = <T>(what: string, check: () => Promise<T | null | undefined | false>, ms = 60_000, every = 100): Promise<T> =>
  waitUntil(what, check, ms, every);

export interface Outcome {
  pass: boolean;
  figures: Record<string, string | number | boolean>;
  detail?: string;
}

export interface Scenario {
  name: string;
  run(): Promise<Outcome>;
}

/** Runs scenarios in order and prints one "PASS name k=v ..." or "FAIL ..." line each; exit 1 on any failure. */
/**
 * Runs `scenarios`, or those named on the command line. `byName` are run only when named: a
 * target not met yet (docs/reliability.md says which and by how much), measured on demand
 * instead of failing every run.
 */
export async function runScenarios(title: string, scenarios: Scenario[], byName: Scenario[] = []): Promise<void> {
  const wanted = process.argv.slice(2);
  const chosen = wanted.length === 0 ? scenarios : [...scenarios, ...byName].filter((s) => wanted.some((w) => s.name.includes(w)));
  let passed = 0;
  let failed = 0;
  const started = Date.now();
  console.log(`${title}: ${chosen.length} scenarios (${process.env.DATABASE_URL ? 'external Postgres' : 'embedded Postgres'})`);
  for (const s of chosen) {
    const t = Date.now();
    let outcome: Outcome;
    try {
      outcome = await s.run();
    } catch (error) {
      // With its cause: `fetch failed` alone does not say whether the daemon refused, reset or died.
      const cause =
        error instanceof Error && error.cause !== undefined
          ? `\ncaused by: ${error.cause instanceof Error ? (error.cause.stack ?? error.cause.message) : String(error.cause)}`
          : '';
      outcome = { pass: false, figures: {}, detail: `${error instanceof Error ? (error.stack ?? error.message) : String(error)}${cause}` };
    }
    const figures = Object.entries({ ...outcome.figures, seconds: ((Date.now() - t) / 1000).toFixed(1) })
      .map(([k, v]) => `${k}=${v}`)
      .join(' ');
    console.log(`${outcome.pass ? 'PASS' : 'FAIL'} ${s.name} ${figures}`);
    if (!outcome.pass && outcome.detail) console.log(`     ${outcome.detail.split('\n').join('\n     ')}`);
    if (outcome.pass) passed++;
    else failed++;
  }
  console.log(`${passed} passed, ${failed} failed`);
  console.log(`(${title} took ${((Date.now() - started) / 1000).toFixed(0)} s)`);
  process.exit(failed === 0 ? 0 : 1);
}
