// One file of .processing/: size limits, the byte-identical skip, then its format's reader
// hands over products a batch at a time and each batch's changed products become one feed.
import { createHash } from 'node:crypto';
import { AppError, isTransient, userError, type ConnectorContext } from '../sdk/index.ts';
import { streamOf, type InboxFile } from './inbox.ts';
import type { CatalogFileOptions } from './options.ts';
import type { FileProduct } from './map.ts';
import { readCsv } from './read-csv.ts';
import { readJson } from './read-json.ts';
import { readXml } from './read-xml.ts';
import { addBatch, newReport, type Batch, type FileReport, type Where } from './report.ts';
import { submitProducts } from './submit.ts';

type Ctx = ConnectorContext<CatalogFileOptions>;

/** Products per feed: the API's bulk size. */
const BATCH = 1_000;

const mb = (n: number): string => `${(n / 1024 / 1024).toFixed(n < 10 * 1024 * 1024 ? 1 : 0)} MB`;

async function sha256Of(file: InboxFile): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of streamOf(file, 1024 * 1024)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** One product per sku, the later row winning (one feed must not write a product twice). */
function lastPerSku(products: FileProduct[]): { kept: FileProduct[]; repeated: { earlier: FileProduct; later: FileProduct }[] } {
  const bySku = new Map<unknown, FileProduct>();
  const repeated: { earlier: FileProduct; later: FileProduct }[] = [];
  const kept: FileProduct[] = [];
  for (const p of products) {
    const sku = p.product.sku;
    const earlier = typeof sku === 'string' ? bySku.get(sku) : undefined;
    if (earlier !== undefined) repeated.push({ earlier, later: p });
    if (typeof sku === 'string') bySku.set(sku, p);
  }
  for (const p of products) if (typeof p.product.sku !== 'string' || bySku.get(p.product.sku) === p) kept.push(p);
  return { kept, repeated };
}

async function submitBatch(ctx: Ctx, report: FileReport, where: Where, batch: Batch): Promise<void> {
  const { kept, repeated } = lastPerSku(batch.products);
  const result = await submitProducts(ctx, kept.map((p) => p.product));
  addBatch(report, where, batch, kept, repeated, result);
  ctx.report.count('products_unchanged', result.unchanged);
  if (result.feed === null) return;
  ctx.report.feed(result.feed.pk);
  ctx.report.count('products_sent', result.feed.items);
}

/**
 * Reads the file with its format's reader and submits its batches. One batch is submitted
 * while the reader reads the next (the database's work overlaps the parsing); the reader
 * waits for the one before, so memory holds two batches whatever the file's size.
 */
async function readAndSubmit(ctx: Ctx, file: InboxFile, report: FileReport): Promise<void> {
  const { format, columns } = ctx.options;
  const where: Where = format === 'csv' ? 'line' : 'element';
  let sending: Promise<void> = Promise.resolve();
  const emit = async (batch: Batch): Promise<void> => {
    await sending;
    ctx.signal.throwIfAborted();
    sending = submitBatch(ctx, report, where, batch);
    // Awaited by the next batch or at the end; a failure stops the reading there.
    sending.catch(() => undefined);
  };
  try {
    if (format === 'csv') {
      await readCsv(file, columns, BATCH, emit, ctx.signal);
    } else {
      // JSON and XML are one document each: read whole, then submitted in batches.
      const products = format === 'json' ? await readJson(file) : await readXml(file, columns);
      for (let i = 0; i < products.length; i += BATCH) {
        const slice = products.slice(i, i + BATCH);
        await emit({ products: slice, rows: slice.length, orphans: [] });
      }
    }
  } catch (error) {
    // Never move the file while one of its feeds is still being written.
    await sending.catch(() => undefined);
    throw error;
  }
  await sending;
}

/**
 * Processes one file in .processing/, read only through its open handle; returns its report.
 * Transient errors are thrown (the file stays for the retry).
 */
export async function processFile(ctx: Ctx, file: InboxFile, name: string): Promise<FileReport> {
  const o = ctx.options;
  const report = newReport(name, ctx.name, ctx.runId, o.format);
  try {
    const size = file.size;
    report.bytes = size;
    if (size === 0) throw userError('The file is empty.');
    if (size > o.max_bytes) throw userError(`The file is ${mb(size)}, over this connector's limit of ${mb(o.max_bytes)} (option max_bytes).`);
    if (o.format !== 'csv' && size > o.max_document_bytes) {
      throw userError(`The file is ${mb(size)}: ${o.format.toUpperCase()} files are read whole and the limit is ${mb(o.max_document_bytes)} (option max_document_bytes); split it or send CSV.`);
    }
    report.sha256 = await sha256Of(file);
    // Skipped only once every feed of the earlier file was applied; until then it is read again.
    const seen = await ctx.processed.seen(report.sha256);
    if (seen !== null) {
      report.outcome = 'skipped';
      report.reason = `The file is byte-identical to ${seen.label}, done at ${seen.at}: nothing to do.`;
      return report;
    }
    await readAndSubmit(ctx, file, report);
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
