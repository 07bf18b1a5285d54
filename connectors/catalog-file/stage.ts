// Rows staged on disk so products can be grouped whatever the row order and the file's size:
// rows are spread over bucket files by a hash of their grouping key, and each bucket is read
// back alone. Memory holds one bucket (about BUCKET_BYTES of rows), never the file; the disk
// holds the rows once per stage (it costs a write and a read of each row per stage, in a temp
// folder removed at the end).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';

/**
 * Source bytes per bucket: a bucket's rows are held in memory together when read back (as
 * objects, about 10 times their bytes), so this bounds the memory a file's grouping takes.
 */
export const BUCKET_BYTES = 2 * 1024 * 1024;
/** Open files while staging: one per bucket (a 1 GiB file: 512 buckets of 2 MiB). */
const MAX_BUCKETS = 512;

/** FNV-1a of the key: its bucket. */
function bucketOf(key: string, n: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return (h >>> 0) % n;
}

/** Buckets for a source of `bytes` (staged rows are about as large as the source). */
export const bucketsFor = (bytes: number): number => Math.max(1, Math.min(MAX_BUCKETS, Math.ceil(bytes / BUCKET_BYTES)));

/** One stage: NDJSON bucket files under a temp folder. */
export class Stage {
  readonly #streams: fs.WriteStream[];
  readonly files: string[];

  readonly buckets: number;

  constructor(dir: string, name: string, buckets: number) {
    this.buckets = buckets;
    this.files = Array.from({ length: buckets }, (_, i) => path.join(dir, `${name}-${i}.ndjson`));
    this.#pending = this.files.map(() => '');
    this.#streams = this.files.map((f) => fs.createWriteStream(f, { flags: 'wx', highWaterMark: 256 * 1024 }));
  }

  readonly #pending: string[];

  /** Stages a record under `key` (its empty fields left out); a bucket's text is written 64 KiB at a time. */
  async write(key: string, record: Record<string, unknown>): Promise<void> {
    const i = bucketOf(key, this.buckets);
    const text = (this.#pending[i] ?? '') + JSON.stringify(compact(record)) + '\n';
    if (text.length < 64 * 1024) {
      this.#pending[i] = text;
      return;
    }
    this.#pending[i] = '';
    if (!this.#streams[i]!.write(text)) await once(this.#streams[i]!, 'drain');
  }

  async close(): Promise<void> {
    this.#pending.forEach((text, i) => text !== '' && this.#streams[i]!.write(text));
    await Promise.all(
      this.#streams.map((s) => new Promise<void>((resolve, reject) => s.end((e?: Error | null) => (e ? reject(e) : resolve())))),
    );
  }

  /** The records of bucket i, in the order staged. */
  static async read<T>(file: string): Promise<T[]> {
    const text = await fs.promises.readFile(file, 'utf8');
    const out: T[] = [];
    for (let start = 0; start < text.length;) {
      const end = text.indexOf('\n', start);
      out.push(JSON.parse(text.slice(start, end === -1 ? text.length : end)) as T);
      start = end === -1 ? text.length : end + 1;
    }
    await fs.promises.rm(file);
    return out;
  }
}

/** The record without its empty lists, empty objects, false and null (about half a row's staged size). */
function compact(record: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k in record) {
    const v = record[k];
    if (v === false || v === null || v === undefined) continue;
    if (Array.isArray(v) ? v.length === 0 : typeof v === 'object' && Object.keys(v).length === 0) continue;
    out[k] = v;
  }
  return out;
}

/** A temp folder for a file's stages, removed when fn ends. */
export async function withStageDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'waybill-stage-'));
  try {
    return await fn(dir);
  } finally {
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}
