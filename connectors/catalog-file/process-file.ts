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
import type { WorkerInput, WorkerMessage } from './parse-worker.ts';
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
 * the file's size; JSON and XML are documents read whole and get room for their tree.
 */
const heapLimits = (format: string, bytes: number): { maxOldGenerationSizeMb: number; maxYoungGenerationSizeMb: number } => ({
  maxOldGenerationSizeMb: format === 'csv' ? 128 : 128 + Math.ceil((bytes / 1024 / 1024) * 10),
  maxYoungGenerationSizeMb: 48,
});

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
  const changed = await ctx.delta.changed(shopPk, chunk.items);
  c.unchanged += chunk.items.length - changed.length;
  ctx.report.count('products_unchanged', chunk.items.length - changed.length);
  if (changed.length === 0) return;
  const feed = await ctx.services.feeds.submit({ shopPk, type: 'product_create', items: changed.map((x) => x.product), source: `connector:${ctx.name}`, baseUrl: ctx.baseUrl });
  // Hashes only after the feed exists: a crash in between re-sends these products, never skips them.
  await ctx.delta.remember(shopPk, changed.map(({ sku, hash }) => ({ sku, hash })));
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
function startReader(ctx: Ctx, file: string, report: FileReport): { go(): Promise<number>; cancel(): void } {
  const o = ctx.options;
  const input: WorkerInput = { file, format: o.format, columns: o.columns ?? {} };
  // Started early: it loads and compiles while the file is hashed; reading begins on go().
  const worker = new Worker(new URL('./parse-worker.ts', import.meta.url), { workerData: input, resourceLimits: heapLimits(o.format, report.bytes ?? 0) });
  // Whatever happens to it before go() (a crash while loading) is kept for go() to report.
  let early: Error | null = null;
  worker.on('error', (error) => (early ??= error));
  worker.once('exit', (code) => (early ??= new Error(`the file reader stopped (exit code ${code})`)));
  return {
    go: () => (early !== null ? Promise.reject(early) : readAndSend(ctx, worker, report)),
    cancel: () => void worker.terminate(),
  };
}

function readAndSend(ctx: Ctx, worker: Worker, report: FileReport): Promise<number> {
  const o = ctx.options;
  return new Promise<number>((resolve, reject) => {
    const sending = new Set<Promise<void>>();
    let settled = false;
    // Never move the file while one of its feeds is still being written.
    const drained = (): Promise<unknown> => Promise.allSettled([...sending]);
    const fail = (error: unknown): void => {
      if (settled) return;
      settled = true;
      void worker.terminate();
      void drained().then(() => reject(error));
    };
    const onAbort = (): void => fail(ctx.signal.reason ?? new Error('aborted'));
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (m: WorkerMessage) => {
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
          ctx.signal.removeEventListener('abort', onAbort);
          resolve(m.rows);
        }, fail);
      } else {
        fail(m.user ? userError(m.message) : new Error(m.message));
      }
    });
    worker.on('error', (error: Error & { code?: string }) =>
      fail(error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? userError(`Reading the file needs more memory than this connector allows (${mb((report.bytes ?? 0))} ${o.format.toUpperCase()}); split it, or send CSV.`) : error));
    worker.on('exit', (code) => {
      if (code !== 0) fail(new Error(`the file reader stopped (exit code ${code})`));
    });
    worker.postMessage('start');
  });
}

/** Processes one file in .processing/; returns its report. Transient errors are thrown (the file stays for the retry). */
export async function processFile(ctx: Ctx, file: string, name: string): Promise<FileReport> {
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
    const reader = startReader(ctx, file, report);
    let seen: Awaited<ReturnType<typeof ctx.processed.seen>>;
    try {
      report.sha256 = await sha256Of(file);
      seen = await ctx.processed.seen(report.sha256);
    } catch (error) {
      reader.cancel();
      throw error;
    }
    if (seen !== null) {
      reader.cancel();
      report.outcome = 'skipped';
      report.reason = `The file is byte-identical to ${seen.label}, done at ${seen.at}: nothing to do.`;
      return report;
    }
    report.counts.rows = await reader.go();
    if (report.counts.products === 0 && report.counts.invalid === 0) throw userError('The file has a header row but no product rows.');
    if (report.counts.valid === 0) throw userError(`None of the file's ${report.counts.products} products is valid; each one's errors are listed in this report.`);
    await ctx.processed.remember(report.sha256, name);
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
