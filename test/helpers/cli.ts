// Runs the real command line (bin/waybill.js) as a user would, in a child process.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bin = path.join(repoRoot, 'bin/waybill.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  json<T = Record<string, unknown>>(): T;
}

/** Env for a child: the parent's, minus anything that would point it at another database. */
const childEnv = (env: Record<string, string>): NodeJS.ProcessEnv => {
  const base = { ...process.env };
  delete base.DATABASE_URL;
  delete base.WAYBILL_DATA_DIR;
  return { ...base, LOG_LEVEL: 'warn', ...env };
};

export function runCli(args: string[], env: Record<string, string>, cwd = repoRoot): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd, env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({ code: code ?? -1, stdout, stderr, json: <T>() => JSON.parse(stdout.trim().split('\n').at(-1) ?? 'null') as T }),
    );
  });
}

export interface DaemonProcess {
  child: ChildProcess;
  url: string;
  output(): string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
}

/** Starts `waybill start` in a child process and waits until /healthz answers. */
export async function spawnDaemon(env: Record<string, string>, args: string[] = []): Promise<DaemonProcess> {
  const port = String(20_000 + Math.floor(Math.random() * 20_000));
  const child = spawn(process.execPath, [bin, 'start', ...args], {
    cwd: repoRoot,
    env: childEnv({ PORT: port, LOG_LEVEL: 'info', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`daemon exited early:\n${out}`);
    const ok = await fetch(`${url}/healthz`).then((r) => r.ok, () => false);
    if (ok) break;
    if (Date.now() > deadline) throw new Error(`daemon did not become healthy:\n${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, url, output: () => out, exited };
}
