// `waybill start` as an operator sees it: on a terminal one readable line says where
// everything is (JSON lines when not a terminal, or when asked); SIGHUP reads the connectors
// file again (a bad one changes nothing, naming every problem); a second daemon on the same data
// folder is refused naming the first (an extra worker joins, saying so); a taken port is named
// before anything is created; a failed start says nothing about Postgres' own connections.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { OutputTail, repoRoot, runCli, spawnDaemon, type DaemonProcess } from '../helpers/cli.ts';
import { connectorsFile, tempDir } from '../helpers/connectors-file.ts';
import { createTestDatabase } from '../helpers/db.ts';
import { until } from '../helpers/until.ts';

const database = await createTestDatabase();
const running: DaemonProcess[] = [];
afterAll(async () => {
  for (const d of running) {
    if (d.child.exitCode === null && d.child.signalCode === null) {
      d.child.kill('SIGTERM');
      await d.exited;
    }
  }
  await database.drop();
});

const inbox = tempDir();
const entry = (name: string, over: Record<string, unknown> = {}) => ({
  name,
  type: 'catalog-file',
  shop_pk: 1,
  options: { inbox, format: 'csv' },
  ...over,
});

/** `waybill start` under a pseudo-terminal (util-linux `script`): stdout is a TTY. */
function onTerminal(
  env: Record<string, string>,
  args: string[] = [],
): { output: () => string; exited: Promise<number | null>; stop: () => void } {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'info', PORT: '0', ...env };
  delete childEnv.WAYBILL_DATA_DIR;
  if (env.WAYBILL_DATA_DIR !== undefined) childEnv.WAYBILL_DATA_DIR = env.WAYBILL_DATA_DIR;
  const command = [process.execPath, path.join(repoRoot, 'bin/waybill.js'), 'start', ...args].map((a) => `'${a}'`).join(' ');
  // `script` runs the command with $SHELL -c. The daemon replaces that shell (exec): dash, CI's
  // /bin/sh, would otherwise itself die of the terminal's SIGINT after the daemon exited 0, and
  // `script` would report 130. SHELL is fixed so the run here is the run in CI.
  childEnv.SHELL = '/bin/sh';
  const child = spawn('script', ['-qfec', `exec ${command}`, '/dev/null'], {
    cwd: repoRoot,
    env: childEnv,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const out = new OutputTail();
  child.stdout.on('data', (c: Buffer) => out.push(c.toString()));
  child.stderr.on('data', (c: Buffer) => out.push(c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  // Ctrl-C, as the operator stops it: the terminal sends SIGINT to the daemon.
  return { output: () => out.toString(), exited, stop: () => child.stdin.write('\x03') };
}

// Colours and carriage returns of the terminal, removed to read the lines.
const COLOUR = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');
const plain = (text: string): string => text.replace(COLOUR, '').replace(/\r/g, '');

describe('start-up output', { timeout: 120_000 }, () => {
  it('on a terminal: one readable line says the API, docs and admin addresses, the database and the connectors', async () => {
    const file = connectorsFile([entry('erp-main')]);
    const t = onTerminal({ DATABASE_URL: database.url, WAYBILL_ADMIN_TOKEN: 'start-up-admin-token-0123', WAYBILL_CONNECTORS: file });
    const line = await until(
      'the ready line',
      () =>
        plain(t.output())
          .split('\n')
          .find((l) => l.includes('waybill is ready')),
      60_000,
    );
    const u = new URL(database.url);
    expect(line).toMatch(
      new RegExp(
        `^\\[\\d\\d:\\d\\d:\\d\\d\\] INFO: waybill is ready in \\d+\\.\\d s \\(role all\\) · API (http://127\\.0\\.0\\.1:\\d+) · docs \\1/docs · admin \\1/admin/ · ` +
          `database: Postgres at ${u.hostname}:${u.port || '5432'}${u.pathname} · 1 connector loaded \\(erp-main\\) from ${file.replaceAll('.', '\\.')}$`,
      ),
    );
    // Readable lines only: no JSON on a terminal; the first-shop hint is a line of its own.
    expect(
      plain(t.output())
        .split('\n')
        .filter((l) => l.startsWith('{')),
    ).toEqual([]);
    await until('the hint', () => plain(t.output()).includes('INFO: No shop yet. Create one with: '), 20_000);
    t.stop();
    // The output says why, should it ever exit otherwise (130 is the "second signal" path).
    expect(await t.exited, plain(t.output()).split('\n').slice(-15).join('\n')).toBe(0);
    expect(plain(t.output())).toContain('waybill stopped');
  });

  it('JSON lines when not a terminal, or on a terminal with --log-format json', async () => {
    const daemon = await spawnDaemon({ DATABASE_URL: database.url, WAYBILL_CONNECTORS: connectorsFile([]) });
    running.push(daemon);
    const ready = await until(
      'the ready line',
      () =>
        daemon
          .output()
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .map((l) => JSON.parse(l) as Record<string, unknown>)
          .find((l) => String(l.msg).startsWith('waybill is ready')),
      30_000,
    );
    expect(ready).toMatchObject({
      level: 'info',
      banner: true,
      role: 'all',
      url: daemon.url,
      docs: `${daemon.url}/docs`,
      admin: 'off',
      database: 'external',
      connectors: [],
    });
    expect(ready.msg).toContain('admin off (set WAYBILL_ADMIN_TOKEN)');
    expect(
      daemon
        .output()
        .split('\n')
        .filter((l) => l !== '' && !l.startsWith('{')),
    ).toEqual([]);

    const t = onTerminal({ DATABASE_URL: database.url, WAYBILL_CONNECTORS: connectorsFile([]) }, ['--log-format', 'json']);
    await until('the ready line', () => plain(t.output()).includes('waybill is ready'), 60_000);
    const lines = plain(t.output())
      .split('\n')
      .filter((l) => l !== '');
    expect(
      lines.every((l) => l.startsWith('{')),
      lines.join('\n'),
    ).toBe(true);
    t.stop();
    await t.exited;
  });

  it('SIGHUP reads the connectors file again; a bad file changes nothing and names every problem', async () => {
    const file = connectorsFile([entry('erp-main')]);
    const daemon = await spawnDaemon({ DATABASE_URL: database.url, WAYBILL_CONNECTORS: file });
    running.push(daemon);
    const lines = (): Record<string, unknown>[] =>
      daemon
        .output()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    fs.writeFileSync(file, JSON.stringify({ connectors: [entry('erp-main'), entry('pim', { schedule: '*/5 * * * *' })] }));
    await until(
      'the changed-on-disk line',
      () => lines().find((l) => String(l.msg).startsWith('the connectors file changed on disk')),
      15_000,
    );
    daemon.child.kill('SIGHUP');
    const reloaded = await until('the reload', () => lines().find((l) => l.msg === 'connectors file reloaded: 2 connectors'), 15_000);
    expect(reloaded).toMatchObject({ connectors: ['erp-main', 'pim'], added: ['pim'] });
    expect(lines().find((l) => l.msg === 'connectors rescheduled')).toMatchObject({ connectors: ['pim'] });

    fs.writeFileSync(
      file,
      JSON.stringify({
        connectors: [entry('erp-main', { type: 'catalog-flie' }), entry('pim', { options: { inbox, format: 'csv', colums: {} } })],
      }),
    );
    daemon.child.kill('SIGHUP');
    const refused = await until('the refusal', () => lines().find((l) => String(l.msg).startsWith('connectors file not reloaded')), 15_000);
    expect(refused.level).toBe('error');
    expect(refused.problems).toEqual([
      expect.stringContaining('connectors[0] "erp-main": type: unknown connector type "catalog-flie" (did you mean catalog-file?'),
      expect.stringContaining('connectors[1] "pim": options.colums: is not a known option (did you mean columns?)'),
    ]);
    // Still running, with the connectors it had.
    expect((await fetch(`${daemon.url}/healthz`)).status).toBe(200);
    daemon.child.kill('SIGTERM');
    expect(await daemon.exited).toBe(0);
  });
});

/** A port nobody listens on now. */
const freePort = (): Promise<number> =>
  new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });

describe('a second daemon', { timeout: 180_000 }, () => {
  const dataDir = tempDir('wb-second-');
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('on the same data folder is refused, naming the first; --role worker joins it, saying so', async () => {
    const first = await spawnDaemon({ WAYBILL_DATA_DIR: dataDir, WAYBILL_CONNECTORS: connectorsFile([]) });
    running.push(first);
    try {
      const second = await runCli(['start'], { WAYBILL_DATA_DIR: dataDir, WAYBILL_CONNECTORS: connectorsFile([]), PORT: '0' });
      expect(second.code).toBe(1);
      expect(second.stderr).toMatch(
        new RegExp(
          `^waybill: waybill already runs on the data folder ${dataDir} \\(pid ${first.child.pid}, role all, ${first.url.replaceAll('.', '\\.')}, since \\S+\\): ` +
            'stop it first \\(kill -TERM \\d+\\), start this one with another WAYBILL_DATA_DIR, or add a worker to it with: waybill start --role worker\\n$',
        ),
      );

      // A worker serves no HTTP: its lines say when it is ready.
      const worker = spawn(process.execPath, [path.join(repoRoot, 'bin/waybill.js'), 'start', '--role', 'worker'], {
        cwd: repoRoot,
        env: { ...process.env, DATABASE_URL: '', WAYBILL_DATA_DIR: dataDir, WAYBILL_CONNECTORS: connectorsFile([]), LOG_LEVEL: 'info' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const out = new OutputTail();
      worker.stdout.on('data', (c: Buffer) => out.push(c.toString()));
      worker.stderr.on('data', (c: Buffer) => out.push(c.toString()));
      const workerExited = new Promise<number | null>((resolve) => worker.on('exit', (code) => resolve(code)));
      try {
        const lines = (): Record<string, unknown>[] =>
          out
            .toString()
            .split('\n')
            .filter((l) => l.startsWith('{'))
            .map((l) => JSON.parse(l) as Record<string, unknown>);
        await until('the worker to be ready', () => lines().some((l) => String(l.msg).startsWith('waybill is ready')), 60_000);
        const joined = lines().find((l) =>
          String(l.msg).startsWith('this worker joins the waybill daemon already running on this data folder'),
        );
        expect(joined, out.toString()).toMatchObject({ joined: [first.child.pid] });
      } finally {
        worker.kill('SIGTERM');
      }
      expect(await workerExited).toBe(0);
    } finally {
      first.child.kill('SIGTERM');
    }
    expect(await first.exited).toBe(0);
    // The first, stopped, left nothing claiming the folder: a new start there is welcome.
    expect(fs.readdirSync(path.join(dataDir, 'daemons'))).toEqual([]);
  });

  it('on a port already taken is refused before anything is made (no data folder, no database)', async () => {
    const port = await freePort();
    const first = await spawnDaemon({ DATABASE_URL: database.url, WAYBILL_CONNECTORS: connectorsFile([]) });
    running.push(first);
    const taken = Number(new URL(first.url).port);
    const elsewhere = path.join(tempDir('wb-port-'), 'data');
    const second = await runCli(['start'], { WAYBILL_DATA_DIR: elsewhere, WAYBILL_CONNECTORS: connectorsFile([]), PORT: String(taken) });
    expect(second.code).toBe(1);
    expect(second.stderr).toBe(
      `waybill: 127.0.0.1:${taken} is already in use (another waybill, by its /healthz, listens there: http://127.0.0.1:${taken}); stop it, or set PORT to another port. Nothing was created.\n`,
    );
    expect(fs.existsSync(elsewhere)).toBe(false);
    // A port taken by something else is named as such.
    const other = net.createServer().listen(port, '127.0.0.1');
    await new Promise((r) => other.once('listening', r));
    const third = await runCli(['start'], { DATABASE_URL: database.url, WAYBILL_CONNECTORS: connectorsFile([]), PORT: String(port) });
    other.close();
    expect(third.stderr).toContain(`127.0.0.1:${port} is already in use (another program listens there`);
    first.child.kill('SIGTERM');
    await first.exited;
  });

  it("a failed start (a bad connectors file) names its problems and says nothing about Postgres' own connections", async () => {
    const bad = connectorsFile([
      entry('erp-main', { type: 'catalog-flie' }),
      entry('pim', { options: { inbox, format: 'csv', colums: {} } }),
    ]);
    const r = await runCli(['start'], { WAYBILL_DATA_DIR: dataDir, WAYBILL_CONNECTORS: bad, PORT: '0', LOG_LEVEL: 'info' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('connectors[1] "pim": options.colums: is not a known option (did you mean columns?)');
    expect(r.stderr).toContain('type: unknown connector type "catalog-flie" (did you mean catalog-file?');
    expect(`${r.stdout}${r.stderr}`).not.toContain('left running');
    expect(r.stdout).toContain('embedded Postgres stopped');
    expect(fs.readdirSync(path.join(dataDir, 'daemons'))).toEqual([]);
  });
});
