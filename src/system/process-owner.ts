// Who owns a piece of work: this process, as "<host>/<pid>/<start time>". Another process on
// the same host can tell whether the owner still runs (its pid is gone, or now belongs to a
// process that started at another time) without waiting for a lease to run out.
import fs from 'node:fs';
import os from 'node:os';

/** When a process started, clock ticks since boot (Linux /proc/<pid>/stat field 22); '' elsewhere or when gone. */
function startTime(pid: number): string {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count from the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? '';
  } catch {
    return '';
  }
}

/** Whether a process of this machine runs with this pid (EPERM: it does, as another user). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

let self: string | null = null;

/** This process as an owner of work. */
export function thisOwner(): string {
  self ??= `${os.hostname()}/${process.pid}/${startTime(process.pid)}`;
  return self;
}

/**
 * True when `owner` is provably not running: it names this host and its pid runs no process,
 * or a process that started at another time (a pid reused, e.g. a restarted container's pid
 * 1). False for an owner on another host, or one that cannot be told apart: those wait for
 * their lease to run out.
 */
export function ownerGone(owner: string | null): boolean {
  if (owner === null) return false;
  const [host, pidText, started] = owner.split('/');
  const pid = Number(pidText);
  if (host !== os.hostname() || !Number.isInteger(pid) || pid <= 0) return false;
  if (owner === thisOwner()) return false;
  if (!processAlive(pid)) return true;
  const now = startTime(pid);
  return started !== undefined && started !== '' && now !== '' && now !== started;
}
