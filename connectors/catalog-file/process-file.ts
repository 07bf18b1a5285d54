// One file: size limits, byte-identical skip, then a worker thread reads it (chunk.ts) while
// this thread sends each chunk's changed products as a feed, in order, and builds the report.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { Worker } from 'node:worker_threads';
import { AppError, isTransient } from '../../src/errors.ts';
import { userError, type ConnectorContext } from '../../src/connectors/host/contract.ts';
import { feedUrl } from '../../src/feeds/feeds.service.ts';
import type { PreparedChunk } from './chunk.ts';
import type { CatalogFileOptions } from './options.ts';
import type { WorkerControl, WorkerInput, WorkerMessage } from './parse-worker.ts';
import { MAX_LISTED, type FileReport } from './report.ts';

export type { FileReport } from './report.ts';

type Ctx = ConnectorContext<CatalogFileOptions>;

const sha256Of = async (file: string): Promise<string> => {
  const hash = createHash('sha256');
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 1024 * 1024 })) hash.update(chunk as Buffer);
  return hash.digest('hex');
};

const mb = (n: number): string => `${(n / 1024 / 1024).toFixed(n < 10 * 1024 * 1024 ? 1 : 0)} MB`;

/**
 * The reader's heap, MB: a CSV streams (a few chunks in hand), so its heap stays small whatever
 * the file's size; JSON and XML are documents read whole and get room for their tree. The young
 * generation of 16 MB (V8 would take 48) keeps the reader's heap near 47 MB instead of 63 MB at
 * 100k rows, at no cost in speed measured on the connectors benchmark. (A --max-semi-space-size
 * given to node overrides it: V8 flags win over a thread's resource limits.)
 */
const heapLimits = (format: string, bytes: number): { maxOldGenerationSizeMb: number; maxYoungGenerationSizeMb: number } => ({
  maxOldGenerationSizeMb: format === 'csv' ? 128 : 128 + Math.ceil((bytes / 1024 / 1024) * 10),
  maxYoungGenerationSizeMb: 16,
});

/** A file-reader thread; `early` is set when it failed or stopped while it was not reading a file. */
interface Reader { worker: Worker; early: Error | null }

function startReader(format: string, bytes: number): Reader {
  const worker = new Worker(new URL('./parse-worker.ts', import.meta.url), { resourceLimits: heapLimits(format, bytes) });
  const reader: Reader = { worker, early: null };
  worker.on('error', (error) => (reader.early ??= error));
  worker.once('exit', (code) => (reader.early ??= new Error(`the file reader stopped (exit code ${code})`)));
  return reader;
}

/**
 * The CSV reader kept loaded between runs, one per process (whichever catalog-file connector
 * runs next takes it). A reader takes about 0.3-0.5 s of CPU to load its modules and compile the
 * API's product schema; kept (and loaded when the daemon starts: `prepare` of the connector), a
 * dropped file is read at once, and that cost is paid once per process instead of once per
 * file. The price is memory: idle, the daemon's RSS is about 40 MB higher before a first file
 * (214 MB instead of 174) and about 57 MB higher after one of 100k rows (284 MB instead of 227,
 * 10 s after it), its peak unchanged. It does not keep the process alive (unref). CSV only: a
 * CSV reader's heap does not depend on the file; a JSON or XML reader's does, and those are
 * started for their file and stopped after it.
 */
let kept: Reader | null = null;

/**
 * The reader threads of one run. `warm` starts the kept CSV reader if there is none (it loads
 * while the run's files settle). `take` hands out the kept reader when it fits the file (and
 * is alive), else starts one; `release` keeps a CSV reader that read its file to the end (or
 * was not needed), and stops any other.
 */
export class Readers {
  readonly #format: string;

  constructor(format: string) {
    this.#format = format;
  }

  warm(): void {
    if (this.#format !== 'csv' || kept !== null) return;
    kept = startReader('csv', 0);
    kept.worker.unref();
  }

  take(bytes: number): Reader {
    const spare = this.#format === 'csv' ? kept : null;
    if (spare !== null) kept = null;
    if (spare !== null && spare.early === null) {
      spare.worker.ref();
      return spare;
    }
    if (spare !== null) void spare.worker.terminate();
    return startReader(this.#format, bytes);
  }

  /** After a file: `healthy` when the reader read it to the end (nothing failed, nothing aborted). */
  release(reader: Reader, healthy: boolean): void {
    if (healthy && reader.early === null && this.#format === 'csv' && kept === null) {
      reader.worker.unref();
      kept = reader;
    } else {
      void reader.worker.terminate();
    }
  }
}

/** Adds a chunk to the report and sends its changed products as one feed. */
async function sendChunk(ctx: Ctx, report: FileReport, chunk: PreparedChunk): Promise<void> {
  const c = report.counts;
  c.products += chunk.counts.products;
  c.variations += chunk.counts.variations;
  c.valid += chunk.counts.valid;
  c.invalid += chunk.counts.invalid;
  c.warnings += chunk.counts.warnings;
  report.errors.push(...chunk.errors.slice(0, Math.max(0, MAX_LISTED - report.errors.length)));
  report.warnings.push(...chunk.warnings.slice(0, Math.max(0, MAX_LISTED - report.warnings.length)));
  if (chunk.items.length === 0) return;
  const shopPk = ctx.shopPk!;
  // The product as its JSON text: the reader thread built, validated and hashed it.
  const changed = await ctx.delta.changed(shopPk, chunk.items.map(({ sku, json, hash }) => ({ sku, product: json, hash })));
  c.unchanged += chunk.items.length - changed.length;
  ctx.report.count('products_unchanged', chunk.items.length - changed.length);
  if (changed.length === 0) return;
  // Each item carries its hash: the feed worker records it when (and only if) it applies the
  // item, in the same transaction, so a product never stored is sent again next time.
  const items = changed.map(({ sku, product, hash }) => ({ sku, json: product, hash }));
  const feed = await ctx.services.feeds.submitValidated({ shopPk, type: 'product_create', items, source: `connector:${ctx.name}`, baseUrl: ctx.baseUrl });
  c.sent += changed.length;
  report.feeds.push({ pk: String(feed.pk), url: feedUrl(ctx.baseUrl, feed.pk), items: changed.length });
  ctx.report.feed(feed.pk);
  ctx.report.count('products_sent', changed.length);
}

/**
 * Reads the file in a worker thread and sends its chunks as they come (up to IN_FLIGHT at
 * once: feed workers process feeds in parallel anyway, so sending in order buys nothing).
 * Resolves with the rows read once every feed is written; rejects with the first failure (a
 * user error for bad input), after the chunks already handed over are written.
 */
function readAndSend(ctx: Ctx, reader: Reader, file: string, report: FileReport): Promise<number> {
  const o = ctx.options;
  // Whatever happened to it while it waited (a crash while loading) is this file's failure.
  if (reader.early !== null) return Promise.reject(reader.early);
  const worker = reader.worker;
  const input: WorkerInput = { file, format: o.format, columns: o.columns ?? {} };
  return new Promise<number>((resolve, reject) => {
    const sending = new Set<Promise<void>>();
    let settled = false;
    // Never move the file while one of its feeds is still being written.
    const drained = (): Promise<unknown> => Promise.allSettled([...sending]);
    const detach = (): void => {
      ctx.signal.removeEventListener('abort', onAbort);
      worker.off('message', onMessage).off('error', onError).off('exit', onExit);
    };
    const fail = (error: unknown): void => {
      if (settled) return;
      settled = true;
      detach();
      void worker.terminate();
      void drained().then(() => reject(error));
    };
    const onAbort = (): void => fail(ctx.signal.reason ?? new Error('aborted'));
    const onMessage = (m: WorkerMessage): void => {
      if (m.kind === 'chunk') {
        const p = sendChunk(ctx, report, m.chunk).then(() => {
          sending.delete(p);
          if (!settled) worker.postMessage('ack');
        }, fail);
        sending.add(p);
      } else if (m.kind === 'end') {
        void Promise.all([...sending]).then(() => {
          if (settled) return;
          settled = true;
          detach();
          resolve(m.rows);
        }, fail);
      } else {
        fail(m.user ? userError(m.message) : new Error(m.message));
      }
    };
    const onError = (error: Error & { code?: string }): void =>
      fail(error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? userError(`Reading the file needs more memory than this connector allows (${mb((report.bytes ?? 0))} ${o.format.toUpperCase()}); split it, or send CSV.`) : error);
    const onExit = (code: number): void => fail(new Error(`the file reader stopped (exit code ${code})`));
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    worker.on('message', onMessage).on('error', onError).on('exit', onExit);
    worker.postMessage({ kind: 'start', input } satisfies WorkerControl);
  });
}

/** Processes one file in .processing/; returns its report. Transient errors are thrown (the file stays for the retry). */
export async function processFile(ctx: Ctx, file: string, name: string, readers: Readers): Promise<FileReport> {
  const o = ctx.options;
  const report: FileReport = {
    file: name, connector: ctx.name, run_id: ctx.runId, format: o.format, outcome: 'done', reason: null, sha256: null, bytes: null,
    started_at: new Date().toISOString(), finished_at: null,
    counts: { rows: 0, products: 0, variations: 0, valid: 0, invalid: 0, unchanged: 0, sent: 0, warnings: 0 },
    feeds: [], errors: [], warnings: [],
  };
  try {
    const size = (await fs.promises.stat(file)).size;
    report.bytes = size;
    if (size === 0) throw userError('The file is empty.');
    if (size > o.max_bytes) throw userError(`The file is ${mb(size)}, over this connector's limit of ${mb(o.max_bytes)} (option max_bytes).`);
    if (o.format !== 'csv' && size > o.max_document_bytes) {
      throw userError(`The file is ${mb(size)}: ${o.format.toUpperCase()} files are read whole and the limit is ${mb(o.max_document_bytes)} (option max_document_bytes); split it or send CSV.`);
    }
    // Taken (or started) before the file is hashed: a new one finishes loading meanwhile.
    const reader = readers.take(size);
    // A reader that failed or was stopped while reading is never kept.
    let intact = true;
    try {
      report.sha256 = await sha256Of(file);
      const seen = await ctx.processed.seen(report.sha256);
      if (seen !== null) {
        report.outcome = 'skipped';
        report.reason = `The file is byte-identical to ${seen.label}, done at ${seen.at}: nothing to do.`;
        return report;
      }
      intact = false;
      report.counts.rows = await readAndSend(ctx, reader, file, report);
      intact = true;
    } finally {
      readers.release(reader, intact);
    }
    if (report.counts.products === 0 && report.counts.invalid === 0) throw userError('The file has a header row but no product rows.');
    if (report.counts.valid === 0) throw userError(`None of the file's ${report.counts.products} products is valid; each one's errors are listed in this report.`);
    await ctx.processed.remember(report.sha256, name, report.feeds.map((f) => f.pk));
  } catch (error) {
    if (isTransient(error) || ctx.signal.aborted) throw error;
    report.outcome = 'error';
    if (error instanceof AppError && error.code === 'connector_input') {
      report.reason = error.message;
    } else {
      ctx.log.error({ err: error, file: name }, 'file could not be processed');
      report.reason = `The file could not be processed: ${(error as Error).message}.`;
    }
  } finally {
    report.finished_at = new Date().toISOString();
  }
  return report;
}
