// Rows staged on disk so products can be grouped whatever the row order and the file's size:
// rows are spread over bucket files by a hash of their grouping key, and each bucket is read
// back alone. Memory holds one bucket (about BUCKET_BYTES of rows), never the file; the disk
// holds the rows once per stage (it costs a write and a read of each row per stage, in a temp
// folder removed at the end).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';

/** Staged bytes aimed at per bucket: its rows are held in memory together when read back. */
export const BUCKET_BYTES = 16 * 1024 * 1024;
const MAX_BUCKETS = 512;

/** FNV-1a of the key: its bucket. */
function bucketOf(key: string, n: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return (h >>> 0) % n;
}

/** Buckets for a source of `bytes` (staged rows are about as large as the source). */
export const bucketsFor = (bytes: number): number => Math.max(1, Math.min(MAX_BUCKETS, Math.ceil((bytes * 1.5) / BUCKET_BYTES)));

/** One stage: NDJSON bucket files under a temp folder. */
export class Stage {
  readonly #streams: fs.WriteStream[];
  readonly files: string[];

  readonly buckets: number;

  constructor(dir: string, name: string, buckets: number) {
    this.buckets = buckets;
    this.files = Array.from({ length: buckets }, (_, i) => path.join(dir, `${name}-${i}.ndjson`));
    this.#streams = this.files.map((f) => fs.createWriteStream(f, { flags: 'wx', highWaterMark: 256 * 1024 }));
  }

  /** Stages a record under `key`; waits when that bucket's stream is full. */
  async write(key: string, record: unknown): Promise<void> {
    const s = this.#streams[bucketOf(key, this.buckets)]!;
    if (!s.write(`${JSON.stringify(record)}\n`)) await once(s, 'drain');
  }

  async close(): Promise<void> {
    await Promise.all(this.#streams.map((s) => new Promise<void>((resolve, reject) => s.end((e?: Error | null) => (e ? reject(e) : resolve())))));
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

/** A temp folder for a file's stages, removed when fn ends. */
export async function withStageDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'waybill-stage-'));
  try {
    return await fn(dir);
  } finally {
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}
