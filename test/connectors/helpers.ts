// Helpers of the connector tests: a connectors file in a temp folder, polling for a condition.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export function tempDir(prefix = 'wb-conn-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Writes {"connectors": entries} and returns its path (for WAYBILL_CONNECTORS). */
export function connectorsFile(entries: Record<string, unknown>[]): string {
  const file = path.join(tempDir(), 'connectors.json');
  fs.writeFileSync(file, JSON.stringify({ connectors: entries }, null, 2));
  return file;
}

/** Polls fn until it returns a value other than undefined/false, or fails after timeoutMs. */
export async function waitFor<T>(fn: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 15_000, what = 'condition'): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

export const ls = (dir: string): string[] => (fs.existsSync(dir) ? fs.readdirSync(dir).sort() : []);

export { responsive } from '../helpers/shedding.ts';

/** Worker threads of this process now (Linux names them "WorkerThread"): the file readers. */
export const workerThreads = (): number =>
  fs.readdirSync('/proc/self/task').filter((t) => {
    try {
      return fs.readFileSync(`/proc/self/task/${t}/comm`, 'utf8').trim() === 'WorkerThread';
    } catch {
      return false; // ended meanwhile
    }
  }).length;
