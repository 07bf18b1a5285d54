// Runs the real command line (bin/waybill.js) as a user would, in a child process.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
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
  /** The last lines the daemon printed (a bounded tail: a long soak prints gigabytes). */
  output(): string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
}

/**
 * The last `maxBytes` of a stream of text, at whole lines: a daemon under load for hours
 * prints more than one string can hold (V8 caps a string at ~512 MB).
 */
export class OutputTail {
  #chunks: string[] = [];
  #bytes = 0;
  #dropped = false;
  readonly #max: number;
  constructor(maxBytes = 1024 * 1024) {
    this.#max = maxBytes;
  }
  push(text: string): void {
    this.#chunks.push(text);
    this.#bytes += text.length;
    while (this.#bytes > this.#max && this.#chunks.length > 1) {
      this.#bytes -= this.#chunks.shift()!.length;
      this.#dropped = true;
    }
    if (this.#bytes > this.#max) {
      const only = this.#chunks[0]!.slice(-this.#max);
      this.#chunks = [only];
      this.#bytes = only.length;
      this.#dropped = true;
    }
  }
  toString(): string {
    const text = this.#chunks.join('');
    if (!this.#dropped) return text;
    const cut = text.indexOf('\n');
    return `[earlier output left out]\n${cut === -1 ? text : text.slice(cut + 1)}`;
  }
}

/** Daemons started by this process: killed when it exits, whatever ends it (a failed assertion, Ctrl-C). */
const live = new Set<ChildProcess>();
let exitHooked = false;
const hookExit = (): void => {
  if (exitHooked) return;
  exitHooked = true;
  process.on('exit', () => {
    for (const child of live) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      for (const child of live) child.kill('SIGTERM');
      process.exit(128 + (signal === 'SIGINT' ? 2 : 15));
    });
  }
};

/**
 * The TCP port a process listens on (Linux: its sockets in /proc/<pid>/fd matched against
 * /proc/net/tcp{,6} in state LISTEN); null while it listens on none.
 */
export async function listeningPort(pid: number): Promise<number | null> {
  const fds = await fs.readdir(`/proc/${pid}/fd`).catch(() => [] as string[]);
  const inodes = new Set<string>();
  for (const fd of fds) {
    const link = await fs.readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
    const m = /^socket:\[(\d+)\]$/.exec(link);
    if (m) inodes.add(m[1]!);
  }
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const text = await fs.readFile(table, 'utf8').catch(() => '');
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      // cols: sl local_address rem_address st ... inode (index 9)
      if (cols[3] === '0A' && inodes.has(cols[9] ?? '')) return parseInt(cols[1]!.split(':')[1]!, 16);
    }
  }
  return null;
}

/**
 * Starts `waybill start` in a child process on a port the OS chooses (PORT=0) and waits until
 * /healthz answers. The port is read from the "waybill is ready" log line, or (log level above
 * info) from the process's listening socket.
 */
export async function spawnDaemon(
  env: Record<string, string>,
  args: string[] = [],
  options: { cwd?: string; bin?: string } = {},
): Promise<DaemonProcess> {
  const child = spawn(process.execPath, [options.bin ?? bin, 'start', ...args], {
    cwd: options.cwd ?? repoRoot,
    env: childEnv({ LOG_LEVEL: 'info', ...env, PORT: '0' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  hookExit();
  live.add(child);
  const out = new OutputTail();
  let readyUrl: string | null = null;
  const scan = (c: Buffer): void => {
    const text = c.toString();
    out.push(text);
    if (readyUrl === null) readyUrl = /"url":"(http:\/\/[^"]+)".*waybill is ready/.exec(text)?.[1] ?? null;
  };
  child.stdout!.on('data', scan);
  child.stderr!.on('data', scan);
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      live.delete(child);
      resolve(code);
    }),
  );
  const deadline = Date.now() + 60_000;
  let url: string | null = null;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`daemon exited early:\n${out.toString()}`);
    if (url === null) {
      const port = readyUrl === null ? await listeningPort(child.pid!) : null;
      url = readyUrl ?? (port === null ? null : `http://127.0.0.1:${port}`);
    }
    if (
      url !== null &&
      (await fetch(`${url}/healthz`).then(
        (r) => r.ok,
        () => false,
      ))
    )
      break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`daemon did not become healthy:\n${out.toString()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, url, output: () => out.toString(), exited };
}
