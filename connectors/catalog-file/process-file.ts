// One file of .processing/: size limits, the byte-identical skip, then its format's reader
// hands over products a batch at a time and each batch's changed products become one feed.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { AppError, canonicalJson, isTransient, userError, type ConnectorContext } from '../sdk/index.ts';
import { streamOf, type InboxFile } from './inbox.ts';
import { effectivePreset } from './preset.ts';
import { readWithPreset } from './preset-file.ts';
import { productModelsOf, type ModelsFile } from './product-models.ts';
import { SummaryBuilder } from './summary.ts';
import type { CatalogFileOptions } from './options.ts';
import type { FileProduct } from './map.ts';
import { readCsv } from './read-csv.ts';
import { readJson } from './read-json.ts';
import { readXml } from './read-xml.ts';
import { addBatch, newReport, type Batch, type FileReport, type Where } from './report.ts';
import { submitProducts, type MergeMode } from './submit.ts';

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

async function submitBatch(ctx: Ctx, report: FileReport, where: Where, batch: Batch, merge?: MergeMode): Promise<void> {
  const { kept, repeated } = lastPerSku(batch.products);
  const result = await submitProducts(
    ctx,
    kept.map((p) => p.product),
    merge,
  );
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
async function readAndSubmit(
  ctx: Ctx,
  file: InboxFile,
  format: string,
  report: FileReport,
  models: ModelsFile | null | undefined,
): Promise<void> {
  const { columns, preset } = ctx.options;
  const where: Where = format === 'csv' || preset !== undefined ? 'line' : 'element';
  // A preset's file merges into the catalog (fields it does not carry stay as they are).
  const summary = preset === undefined ? null : new SummaryBuilder();
  const merge: MergeMode | undefined =
    summary === null ? undefined : { defaults: effectivePreset(preset!, ctx.options).defaults, lacked: (f, v) => summary.defaulted(f, v) };
  let sending: Promise<void> = Promise.resolve();
  const emit = async (batch: Batch): Promise<void> => {
    await sending;
    ctx.signal.throwIfAborted();
    sending = submitBatch(ctx, report, where, batch, merge);
    // Awaited by the next batch or at the end; a failure stops the reading there.
    sending.catch(() => undefined);
  };
  try {
    if (summary !== null) {
      report.summary = summary.s;
      if (models === null)
        summary.warn(
          'product_models_missing',
          `${ctx.options.product_models} is not in the inbox: products named from their first variant`,
        );
      await readWithPreset(file, format, { ...ctx.options, preset: preset!, models: models ?? undefined }, summary, emit, ctx.signal);
      report.counts.rows = summary.s.rows;
    } else if (format === 'csv') {
      await readCsv(file, columns, BATCH, emit, ctx.signal);
    } else {
      if (format !== 'json' && format !== 'xml')
        throw userError(`Files of format "${format}" are read with a preset only (option preset); send CSV, JSON or XML.`);
      const batches = format === 'json' ? readJson(file, BATCH, ctx.signal) : readXml(file, BATCH, columns, ctx.signal);
      for await (const products of batches) await emit({ products, rows: products.length, orphans: [] });
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
  const format = o.format ?? formatOfName(name);
  const report = newReport(name, ctx.name, ctx.runId, format);
  let models: ModelsFile | null | undefined;
  try {
    const size = file.size;
    report.bytes = size;
    if (size === 0) throw userError('The file is empty.');
    if (size > o.max_bytes)
      throw userError(`The file is ${mb(size)}, over this connector's limit of ${mb(o.max_bytes)} (option max_bytes).`);
    if (format !== 'csv' && size > o.max_document_bytes) {
      throw userError(
        `The file is ${mb(size)}: ${format.toUpperCase()} files are read whole and the limit is ${mb(o.max_document_bytes)} (option max_document_bytes); split it or send CSV.`,
      );
    }
    report.sha256 = await sha256Of(file);
    models = await productModelsOf(o);
    // Skipped only once every feed of the earlier file was applied; until then it is read again.
    const key = skipKey(report.sha256, o, models ? await sha256Of(models.file) : undefined);
    const seen = await ctx.processed.seen(key);
    if (seen !== null) {
      report.outcome = 'skipped';
      report.reason = `The file is byte-identical to ${seen.label}, done at ${seen.at}: nothing to do.`;
      return report;
    }
    await readAndSubmit(ctx, file, format, report, models);
    if (report.counts.products === 0 && report.counts.invalid === 0) throw userError('The file has a header row but no product rows.');
    if (report.counts.valid === 0)
      throw userError(`None of the file's ${report.counts.products} products is valid; each one's errors are listed in this report.`);
    await ctx.processed.remember(
      key,
      name,
      report.feeds.map((f) => f.pk),
    );
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
    await models?.file.handle.close();
    report.finished_at = new Date().toISOString();
  }
  return report;
}

/** csv, json, xml, xlsx: the file name's extension (.txt is CSV). */
export function formatOfName(name: string): string {
  const ext = path.extname(name).slice(1).toLowerCase();
  return ext === 'txt' ? 'csv' : ext;
}

/**
 * The identical-file skip key: the file's sha256, the options that decide how it is read, and
 * the product model file's sha256 when there is one, so a file dropped again after a change of
 * the connector's options or of its product models is read again.
 */
export function skipKey(sha256: string, o: CatalogFileOptions, modelsSha256?: string): string {
  const { inbox: _inbox, settle_ms: _settle, max_bytes: _max, max_document_bytes: _doc, ...reading } = o;
  return createHash('sha256')
    .update(sha256)
    .update(canonicalJson(reading))
    .update(modelsSha256 ?? '')
    .digest('hex');
}
