// Which daemons run on one data folder (embedded database). A second `waybill start` there
// would join the running embedded Postgres and silently add a second API, scheduler and
// worker; so each daemon writes <dataDir>/daemons/<pid>.json while it runs, and one whose role
// overlaps a running daemon's is refused, naming it. `--role worker` joins on purpose: an
// extra worker for the same database, said so in one line. Checked before anything is made.
import fs from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../errors.ts';
import { ownerGone, thisOwner } from '../system/process-owner.ts';

export type DaemonRole = 'all' | 'api' | 'worker' | 'scheduler';

export interface RunningDaemon {
  pid: number;
  role: DaemonRole;
  /** Where its API listens; null while starting or without the api role. */
  url: string | null;
  owner: string;
  started_at: string;
}

export interface DaemonClaim {
  /** Running daemons this one joins (only an extra worker joins any). */
  joined: RunningDaemon[];
  /** Records where this daemon's API listens, for the message a later start prints. */
  listening(url: string | null): Promise<void>;
  release(): Promise<void>;
}

/** Two roles that may not run twice on one data folder: the API (one port) and the scheduler; a worker adds freely. */
const overlaps = (a: DaemonRole, b: DaemonRole): boolean => a !== 'worker' && b !== 'worker' && (a === 'all' || b === 'all' || a === b);

const folderOf = (dataDir: string): string => path.join(dataDir, 'daemons');

/** The daemons that run on dataDir now; files left by dead ones (kill -9) are removed. */
export async function runningDaemons(dataDir: string): Promise<RunningDaemon[]> {
  const dir = folderOf(dataDir);
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  const found: RunningDaemon[] = [];
  for (const name of names.filter((n) => n.endsWith('.json'))) {
    const file = path.join(dir, name);
    const d = await fs.readFile(file, 'utf8').then(
      (t) => JSON.parse(t) as RunningDaemon,
      () => null,
    );
    if (d === null || d.owner === thisOwner()) continue;
    if (ownerGone(d.owner)) await fs.rm(file, { force: true });
    else found.push(d);
  }
  return found;
}

const describe = (d: RunningDaemon): string => `pid ${d.pid}, role ${d.role}${d.url === null ? '' : `, ${d.url}`}, since ${d.started_at}`;

/**
 * Claims dataDir for a daemon of `role`, or refuses (409 already_running) when a daemon whose
 * role overlaps runs there. Nothing is created when refused.
 */
export async function claimDataFolder(dataDir: string, role: DaemonRole): Promise<DaemonClaim> {
  const running = await runningDaemons(dataDir);
  const clash = running.find((d) => overlaps(d.role, role));
  if (clash !== undefined) {
    throw new AppError(
      'already_running',
      409,
      `waybill already runs on the data folder ${dataDir} (${describe(clash)}): stop it first (kill -TERM ${clash.pid}), ` +
        `start this one with another WAYBILL_DATA_DIR, or add a worker to it with: waybill start --role worker`,
    );
  }
  const dir = folderOf(dataDir);
  const file = path.join(dir, `${process.pid}.json`);
  const me: RunningDaemon = { pid: process.pid, role, url: null, owner: thisOwner(), started_at: new Date().toISOString() };
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(file, JSON.stringify(me));
  return {
    joined: running,
    async listening(url) {
      await fs.writeFile(file, JSON.stringify({ ...me, url }));
    },
    release: () => fs.rm(file, { force: true }),
  };
}

/** The line an extra worker prints: which daemon it joins. */
export const joinLine = (joined: RunningDaemon[]): string =>
  `this worker joins the waybill daemon already running on this data folder (${joined.map(describe).join('; ')}): an extra worker on the same database`;
