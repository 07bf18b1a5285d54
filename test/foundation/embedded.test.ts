// The embedded-Postgres mode as a user runs it: `waybill start` with no DATABASE_URL.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, spawnDaemon, type DaemonProcess } from '../helpers/cli.ts';
import { until } from '../helpers/until.ts';

const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'waybill-embedded-'));
const env = { WAYBILL_DATA_DIR: dataDir };
const running: DaemonProcess[] = [];
const postmasterPid = async (): Promise<number | null> => {
  const text = await fs.readFile(path.join(dataDir, 'pg', 'postmaster.pid'), 'utf8').catch(() => null);
  return text === null ? null : Number(text.split('\n')[0]);
};
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

afterAll(async () => {
  for (const d of running) if (d.child.exitCode === null) d.child.kill('SIGKILL');
  const pid = await postmasterPid();
  if (pid !== null && alive(pid)) process.kill(pid, 'SIGINT');
  await until('the old server to stop', async () => pid === null || !alive(pid), 20_000).catch(() => undefined);
  await fs.rm(dataDir, { recursive: true, force: true });
});

// Each step starts real processes; on a loaded 2-core machine a start can take 20 s.
describe('embedded Postgres', { timeout: 120_000 }, () => {
  let daemon: DaemonProcess;

  it('starts with no DATABASE_URL and serves /healthz and /readyz', async () => {
    daemon = await spawnDaemon(env);
    running.push(daemon);
    expect((await fetch(`${daemon.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${daemon.url}/readyz`)).status).toBe(200);
    await until('the start-up hint', async () => daemon.output().includes('keys create --shop 1'), 20_000);
    expect(daemon.output()).toContain('shops create --name');
    // The daemon process itself (same pid) runs with waybill's heap sizing.
    const argv = (await fs.readFile(`/proc/${daemon.child.pid}/cmdline`, 'utf8')).split('\0');
    expect(argv).toEqual(expect.arrayContaining(['--max-semi-space-size=16', '--max-old-space-size=1024', 'start']));
  });

  it('is shared with CLI commands while the daemon runs (they leave it running)', async () => {
    const shop = await runCli(['shops', 'create', '--name', 'Kept', '--json'], env);
    expect(shop.code).toBe(0);
    expect((await fetch(`${daemon.url}/readyz`)).status).toBe(200);
  });

  it('comes back with the same data after kill -9 of the daemon', async () => {
    daemon.child.kill('SIGKILL');
    await daemon.exited;
    // A heap flag the user gives wins over waybill's default for it.
    daemon = await spawnDaemon({ ...env, NODE_OPTIONS: '--max-old-space-size=700' });
    running.push(daemon);
    const argv = (await fs.readFile(`/proc/${daemon.child.pid}/cmdline`, 'utf8')).split('\0');
    expect(argv).toContain('--max-semi-space-size=16');
    expect(argv.some((a) => a.startsWith('--max-old-space-size'))).toBe(false);
    const list = await runCli(['shops', 'list', '--json'], env);
    expect(list.json<{ shops: { name: string }[] }>().shops.map((s) => s.name)).toEqual(['Kept']);
  });

  it('recovers when the database died too, leaving a stale postmaster.pid', async () => {
    const pgPid = (await postmasterPid())!;
    daemon.child.kill('SIGKILL');
    process.kill(pgPid, 'SIGKILL');
    await daemon.exited;
    await until('the killed postmaster to be gone', async () => !alive(pgPid), 20_000);
    // Postgres's children may linger a moment after their postmaster is killed.
    await new Promise((r) => setTimeout(r, 500));
    expect(await postmasterPid()).toBe(pgPid);
    daemon = await spawnDaemon(env);
    running.push(daemon);
    const list = await runCli(['shops', 'list', '--json'], env);
    expect(list.json<{ shops: { name: string }[] }>().shops.map((s) => s.name)).toEqual(['Kept']);
  });

  it('answers 503 on /readyz while the database is unreachable and recovers by itself', async () => {
    // Freeze the server and its backends: connections hang, as with a network partition.
    const pgPid = (await postmasterPid())!;
    const { execFileSync } = await import('node:child_process');
    const children = execFileSync('pgrep', ['-P', String(pgPid)])
      .toString()
      .trim()
      .split('\n')
      .map(Number);
    const all = [pgPid, ...children];
    for (const pid of all) process.kill(pid, 'SIGSTOP');
    try {
      await until('readyz to answer 503', async () => (await fetch(`${daemon.url}/readyz`)).status === 503, 30_000);
      const down = await fetch(`${daemon.url}/readyz`);
      expect(down.status).toBe(503);
      expect(down.headers.get('content-type')).toMatch(/application\/problem\+json/);
      expect(down.headers.get('retry-after')).toBe('5');
      expect(await down.json()).toMatchObject({ status: 503, code: 'not_ready', checks: { database: 'failing' } });
      expect((await fetch(`${daemon.url}/healthz`)).status).toBe(200);
    } finally {
      for (const pid of all) process.kill(pid, 'SIGCONT');
    }
    await until('readyz to answer 200', async () => (await fetch(`${daemon.url}/readyz`)).status === 200, 30_000);
  });

  it('restarts a crashed embedded database by itself', async () => {
    const pgPid = (await postmasterPid())!;
    process.kill(pgPid, 'SIGKILL');
    // No one restarts it by hand: the daemon's watchdog does.
    await until(
      'the watchdog to restart Postgres',
      async () => {
        const pid = await postmasterPid();
        return pid !== null && pid !== pgPid && (await fetch(`${daemon.url}/readyz`)).status === 200;
      },
      60_000,
    );
    const list = await runCli(['shops', 'list', '--json'], env);
    expect(list.json<{ shops: { name: string }[] }>().shops.map((s) => s.name)).toEqual(['Kept']);
  });

  it('stops cleanly on SIGTERM, and stops the embedded server with it', async () => {
    daemon.child.kill('SIGTERM');
    const code = await daemon.exited;
    if (code !== 0)
      console.error(
        daemon
          .output()
          .split('\n')
          .filter((l) => !l.includes('request'))
          .slice(-15)
          .join('\n'),
      );
    expect(code).toBe(0);
    expect(daemon.output()).toContain('waybill stopped');
    await until('the embedded server to stop', async () => (await postmasterPid()) === null, 20_000);
  });
});
