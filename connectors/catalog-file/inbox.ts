// The inbox folder: which files are ready (settled), safe names, and moves between
// <inbox>, .processing/, .done/ and .error/. Paths are never built from file contents, and
// every path is checked to stay inside the inbox. A file is read through one handle, opened
// without following links and checked once open (openInboxFile): what happens to its name
// later (a link put in its place) changes nothing that is read.
import { constants, type ReadStream } from 'node:fs';
import fs, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { userError } from '../sdk/index.ts';

export const PROCESSING = '.processing';
export const DONE = '.done';
export const ERROR = '.error';

export const EXTENSIONS: Record<'csv' | 'json' | 'xml' | 'xlsx', string[]> = {
  csv: ['.csv', '.txt'],
  json: ['.json'],
  xml: ['.xml'],
  xlsx: ['.xlsx'],
};

/** Letters and digits of any script, then space . _ - ( ) + , @ = ; no control characters, no slashes. */
const SAFE_NAME = /^[\p{L}\p{N}][\p{L}\p{N} ._()+,@=-]{0,199}$/u;

export type Entry =
  | { kind: 'file'; name: string; size: number; mtimeMs: number }
  /** Not processed: the reason goes into .error/ with it. */
  | { kind: 'refused'; name: string; reason: string };

/** A name for .error/ made from one we refuse: unsafe characters become "_". */
export function safeName(name: string): string {
  const cleaned = name
    .normalize('NFC')
    .replace(/[^\p{L}\p{N} ._()+,@=-]/gu, '_')
    .replace(/\.{2,}/g, '_')
    .replace(/^[._ ]+/, '')
    .slice(0, 180);
  return cleaned === '' ? 'unnamed' : cleaned;
}

/** `dir/name`, refusing anything that would leave `dir` (defence in depth: names come from readdir). */
export function inside(dir: string, name: string): string {
  const full = path.resolve(dir, name);
  if (path.dirname(full) !== path.resolve(dir)) throw new Error(`refusing a path outside ${dir}: ${JSON.stringify(name)}`);
  return full;
}

/** Creates the inbox's folders; one that is a link (to a folder elsewhere) is refused. */
export async function ensureFolders(inbox: string): Promise<void> {
  for (const d of [PROCESSING, DONE, ERROR]) {
    await fs.mkdir(path.join(inbox, d), { recursive: true });
    if (!(await fs.lstat(path.join(inbox, d))).isDirectory())
      throw userError(`${path.join(inbox, d)} is not a folder (a symbolic link?); remove it, the connector creates it.`);
  }
}

/** A file of the inbox, open for reading: its size when opened, and the only way to its bytes. */
export interface InboxFile {
  handle: FileHandle;
  size: number;
}

/**
 * Opens `dir/name` once for reading: not through a symbolic link (O_NOFOLLOW), not blocking on a
 * FIFO (O_NONBLOCK), then checks the open file itself: a regular file with no other name (a hard
 * link would reach a file outside), on the inbox's device, and (Linux) where the kernel says it
 * is, inside the inbox. Returns the reason instead when the file is refused, null when it is gone.
 */
export async function openInboxFile(inbox: string, dir: string, name: string): Promise<InboxFile | { refused: string } | null> {
  let handle: FileHandle;
  try {
    handle = await fs.open(inside(dir, name), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'ENOENT') return null;
    if (code === 'ELOOP') return { refused: 'The file is a symbolic link; only regular files in the inbox are read.' };
    throw error;
  }
  try {
    const st = await handle.stat();
    const reason = !st.isFile()
      ? 'The file is not a regular file; only regular files in the inbox are read.'
      : st.nlink !== 1
        ? 'The file has other names (hard links); only files with one name, in the inbox, are read.'
        : st.dev !== (await fs.stat(inbox)).dev
          ? 'The file is on another device than the inbox; only files in the inbox are read.'
          : !(await openedInside(handle, inbox))
            ? 'The file is not inside the inbox; only files in the inbox are read.'
            : null;
    if (reason === null) return { handle, size: st.size };
    await handle.close();
    return { refused: reason };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** Where the kernel has the open file (Linux's /proc/self/fd): inside the inbox's real path. True where that cannot be read. */
async function openedInside(handle: FileHandle, inbox: string): Promise<boolean> {
  const at = await fs.readlink(`/proc/self/fd/${handle.fd}`).catch(() => null);
  if (at === null) return true;
  return at.startsWith(`${await fs.realpath(inbox)}${path.sep}`);
}

/** The file's bytes as a stream, from its start to the size it had when opened; the handle stays open. */
export function streamOf(file: InboxFile, highWaterMark: number, signal?: AbortSignal): ReadStream {
  return file.handle.createReadStream({ start: 0, end: Math.max(0, file.size - 1), autoClose: false, highWaterMark, signal });
}

/**
 * Files of the inbox: regular files with a safe name and the format's extension; refused
 * ones (odd names, `..` names, symbolic links, wrong extension) listed apart. Hidden names
 * (".x": editors' and rsync's temporary files) are left alone, except "..x" names.
 */
export async function scan(inbox: string, format: keyof typeof EXTENSIONS | undefined): Promise<Entry[]> {
  const accepted = format === undefined ? Object.values(EXTENSIONS).flat() : EXTENSIONS[format];
  const out: Entry[] = [];
  for (const d of await fs.readdir(inbox, { withFileTypes: true })) {
    const name = d.name;
    if (name.startsWith('.') && !name.startsWith('..')) continue;
    if (d.isDirectory()) continue;
    if (d.isSymbolicLink()) {
      out.push({ kind: 'refused', name, reason: 'The file is a symbolic link; only regular files in the inbox are read.' });
      continue;
    }
    if (!d.isFile()) continue;
    if (!SAFE_NAME.test(name) || name.includes('..')) {
      out.push({
        kind: 'refused',
        name,
        reason: `The file name ${JSON.stringify(name)} has characters other than letters, digits, space and . _ - ( ) + , @ = (or ".."); rename it.`,
      });
      continue;
    }
    const ext = path.extname(name).toLowerCase();
    if (!accepted.includes(ext)) {
      out.push({
        kind: 'refused',
        name,
        reason: `The file extension "${ext}" does not match this connector's format ${format ?? '(any)'} (${accepted.join(', ')}).`,
      });
      continue;
    }
    const st = await fs.lstat(inside(inbox, name)).catch(() => null);
    if (st !== null && st.isFile()) out.push({ kind: 'file', name, size: st.size, mtimeMs: st.mtimeMs });
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : 1));
}

/**
 * Of the files seen, those whose size and mtime stay unchanged for settleMs (a file still being
 * written waits for a later run). Waits once for all, abortable.
 */
export async function settled(
  inbox: string,
  files: Extract<Entry, { kind: 'file' }>[],
  settleMs: number,
  signal?: AbortSignal,
): Promise<{ ready: string[]; waiting: string[] }> {
  if (files.length === 0) return { ready: [], waiting: [] };
  const youngest = Math.max(...files.map((f) => f.mtimeMs));
  const wait = Math.min(settleMs, Math.max(0, settleMs - (Date.now() - youngest)) + 50);
  if (wait > 0) await sleep(wait, undefined, { signal });
  const ready: string[] = [];
  const waiting: string[] = [];
  for (const f of files) {
    const st = await fs.lstat(inside(inbox, f.name)).catch(() => null);
    const quiet = st !== null && st.size === f.size && st.mtimeMs === f.mtimeMs && Date.now() - st.mtimeMs >= settleMs;
    (quiet ? ready : waiting).push(f.name);
  }
  return { ready, waiting };
}

/** Moves `from` into `dir` under `name`, or `name` with a time suffix when taken; returns the final name. */
export async function moveInto(from: string, dir: string, name: string): Promise<string> {
  let target = name;
  for (let i = 0; ; i++) {
    try {
      await fs.access(inside(dir, target));
    } catch {
      break;
    }
    const ext = path.extname(name);
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    target = `${path.basename(name, ext)}.${stamp}${i === 0 ? '' : `-${i}`}${ext}`;
  }
  await fs.rename(from, inside(dir, target));
  return target;
}
