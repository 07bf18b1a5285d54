// The inbox folder: which files are ready (settled), safe names, and moves between
// <inbox>, .processing/, .done/ and .error/. Paths are never built from file contents, and
// every path is checked to stay inside the inbox.
import fs from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export const PROCESSING = '.processing';
export const DONE = '.done';
export const ERROR = '.error';

export const EXTENSIONS: Record<'csv' | 'json' | 'xml', string[]> = { csv: ['.csv', '.txt'], json: ['.json'], xml: ['.xml'] };

/** Letters and digits of any script, then space . _ - ( ) + , @ = ; no control characters, no slashes. */
const SAFE_NAME = /^[\p{L}\p{N}][\p{L}\p{N} ._()+,@=-]{0,199}$/u;

export type Entry =
  | { kind: 'file'; name: string; size: number; mtimeMs: number }
  /** Not processed: the reason goes into .error/ with it. */
  | { kind: 'refused'; name: string; reason: string };

/** A name for .error/ made from one we refuse: unsafe characters become "_". */
export function safeName(name: string): string {
  const cleaned = name.normalize('NFC').replace(/[^\p{L}\p{N} ._()+,@=-]/gu, '_').replace(/\.{2,}/g, '_').replace(/^[._ ]+/, '').slice(0, 180);
  return cleaned === '' ? 'unnamed' : cleaned;
}

/** `dir/name`, refusing anything that would leave `dir` (defence in depth: names come from readdir). */
export function inside(dir: string, name: string): string {
  const full = path.resolve(dir, name);
  if (path.dirname(full) !== path.resolve(dir)) throw new Error(`refusing a path outside ${dir}: ${JSON.stringify(name)}`);
  return full;
}

export async function ensureFolders(inbox: string): Promise<void> {
  for (const d of [PROCESSING, DONE, ERROR]) await fs.mkdir(path.join(inbox, d), { recursive: true });
}

/**
 * Files of the inbox: regular files with a safe name and the format's extension; refused
 * ones (odd names, `..` names, symbolic links, wrong extension) listed apart. Hidden names
 * (".x": editors' and rsync's temporary files) are left alone, except "..x" names.
 */
export async function scan(inbox: string, format: keyof typeof EXTENSIONS): Promise<Entry[]> {
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
      out.push({ kind: 'refused', name, reason: `The file name ${JSON.stringify(name)} has characters other than letters, digits, space and . _ - ( ) + , @ = (or ".."); rename it.` });
      continue;
    }
    const ext = path.extname(name).toLowerCase();
    if (!EXTENSIONS[format].includes(ext)) {
      out.push({ kind: 'refused', name, reason: `The file extension "${ext}" does not match this connector's format ${format} (${EXTENSIONS[format].join(', ')}).` });
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
export async function settled(inbox: string, files: Extract<Entry, { kind: 'file' }>[], settleMs: number, signal?: AbortSignal): Promise<{ ready: string[]; waiting: string[] }> {
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
