// `npm start`, stopped the way the README says (SIGTERM to the npm process, as a service
// manager sends it): the daemon itself stops, nothing keeps serving.
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import { afterAll, expect, it } from 'vitest';
import { OutputTail, repoRoot } from '../helpers/cli.ts';
import { createTestDatabase } from '../helpers/db.ts';
import { until } from '../helpers/until.ts';

const database = await createTestDatabase();
const children: number[] = [];
afterAll(async () => {
  for (const pid of children) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
  await database.drop();
});

/** Every process below `pid` (Linux /proc). */
async function descendants(pid: number): Promise<number[]> {
  const parents = new Map<number, number>();
  for (const entry of await fs.readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await fs.readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (stat !== '') parents.set(Number(entry), ppid);
  }
  const out: number[] = [];
  const walk = (p: number): void => {
    for (const [child, parent] of parents)
      if (parent === p) {
        out.push(child);
        walk(child);
      }
  };
  walk(pid);
  return out;
}

it('stops the daemon when the npm process gets SIGTERM', { timeout: 120_000 }, async () => {
  // npm as the user runs it (npm_execpath: the npm running this test suite, when there is one).
  const npm = process.env.npm_execpath;
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: database.url, PORT: '0', LOG_LEVEL: 'info' };
  delete env.WAYBILL_DATA_DIR;
  const child =
    npm !== undefined && npm.endsWith('.js')
      ? spawn(process.execPath, [npm, 'start'], { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn('npm', ['start'], { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child.pid!);
  const out = new OutputTail();
  child.stdout.on('data', (c: Buffer) => out.push(c.toString()));
  child.stderr.on('data', (c: Buffer) => out.push(c.toString()));
  const npmExited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = await until(
    'the daemon to be ready',
    async () => {
      if (child.exitCode !== null) throw new Error(`npm start exited early:\n${out.toString()}`);
      const found = /"url":"(http:\/\/[^"]+)"[^\n]*waybill is ready/.exec(out.toString())?.[1];
      return found !== undefined &&
        (await fetch(`${found}/healthz`).then(
          (r) => r.ok,
          () => false,
        ))
        ? found
        : null;
    },
    90_000,
  );
  // The processes npm started: the daemon (and, if any, a shell in between).
  const below = await descendants(child.pid!);
  expect(below.length).toBeGreaterThan(0);
  children.push(...below);

  const sent = Date.now();
  child.kill('SIGTERM');
  await until(
    'the port to refuse connections',
    async () =>
      await fetch(`${url}/healthz`).then(
        () => null,
        () => true,
      ),
    15_000,
  );
  const refusedAfter = Date.now() - sent;
  expect(await npmExited).not.toBeNull();
  expect(refusedAfter).toBeLessThan(15_000);
  // The daemon process itself is gone (not left behind by a shell in between).
  await until(
    'the daemon process to exit',
    async () => {
      const alive = below.filter((pid) => {
        try {
          process.kill(pid, 0);
          return true;
        } catch {
          return false;
        }
      });
      return alive.length === 0 ? true : null;
    },
    15_000,
  );
  expect(out.toString()).toContain('waybill stopped');
});
