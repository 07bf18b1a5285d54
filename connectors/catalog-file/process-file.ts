// One file: size limits, byte-identical skip, streaming parse, validation with the API's
// rules, delta detection, feeds of at most 1,000 products, and the report written beside it.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { validateProducts } from '../../src/catalog/product-validation.ts';
import { AppError, isTransient, type FieldError } from '../../src/errors.ts';
import { userError, type ConnectorContext } from '../../src/connectors/host/contract.ts';
import { feedUrl } from '../../src/feeds/feeds.service.ts';
import { CsvGrouper, lineOf, type FileProduct } from './map.ts';
import type { CatalogFileOptions } from './options.ts';
import { readCsv } from './parse-csv.ts';
import { readJson } from './parse-json.ts';
import { readXml } from './parse-xml.ts';

/** Products per feed (the API's bulk size). */
export const CHUNK = 1_000;
/** Entries kept in a report's errors and warnings; the counts stay exact. */
const MAX_LISTED = 10_000;

export interface ReportEntry {
  /** CSV: the line of the product row; JSON/XML: the product's element number (1-based). */
  line?: number;
  element?: number;
  sku: string | null;
  errors: (FieldError & { line?: number })[];
}

export interface FileReport {
  file: string;
  connector: string;
  run_id: number;
  format: string;
  outcome: 'done' | 'error' | 'skipped';
  /** One sentence: why the file is in .error/ (or why it was skipped). */
  reason: string | null;
  sha256: string | null;
  bytes: number | null;
  started_at: string;
  finished_at: string | null;
  counts: { rows: number; products: number; variations: number; valid: number; invalid: number; unchanged: number; sent: number; warnings: number };
  feeds: { pk: string; url: string; items: number }[];
  errors: ReportEntry[];
  warnings: { line?: number; element?: number; sku: string | null; pointer: string; message: string }[];
}

type Ctx = ConnectorContext<CatalogFileOptions>;

const sha256Of = async (file: string): Promise<string> => {
  const hash = createHash('sha256');
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 1024 * 1024 })) hash.update(chunk as Buffer);
  return hash.digest('hex');
};

const mb = (n: number): string => `${(n / 1024 / 1024).toFixed(n < 10 * 1024 * 1024 ? 1 : 0)} MB`;

/** Splits "/3/variations/0/price" into product 3 and "/variations/0/price". */
const splitPointer = (pointer: string): [number, string] => {
  const m = /^\/(\d+)(.*)$/.exec(pointer);
  return m === null ? [-1, pointer] : [Number(m[1]), m[2] ?? ''];
};

class ChunkSender {
  readonly #ctx: Ctx;
  readonly #report: FileReport;
  readonly #where: 'line' | 'element';

  constructor(ctx: Ctx, report: FileReport) {
    this.#ctx = ctx;
    this.#report = report;
    this.#where = report.format === 'csv' ? 'line' : 'element';
  }

  async send(products: FileProduct[]): Promise<void> {
    if (products.length === 0) return;
    const r = this.#report;
    r.counts.products += products.length;
    r.counts.variations += products.reduce((n, p) => n + (Array.isArray(p.product.variations) ? p.product.variations.length : 0), 0);
    const v = validateProducts(products.map((p) => p.product));
    const byIndex = new Map<number, (FieldError & { line?: number })[]>();
    for (const e of v.errors) {
      const [i, pointer] = splitPointer(e.pointer);
      const p = products[i];
      const list = byIndex.get(i) ?? [];
      list.push({ ...e, pointer, ...(this.#where === 'line' && p !== undefined ? { line: lineOf(p, pointer) } : {}) });
      byIndex.set(i, list);
    }
    r.counts.invalid += byIndex.size;
    for (const [i, errors] of byIndex) this.#entry(products[i], errors);
    for (const w of v.warnings) {
      r.counts.warnings++;
      const p = products[w.index];
      if (r.warnings.length < MAX_LISTED && p !== undefined) {
        r.warnings.push({ [this.#where]: p.at, sku: typeof p.product.sku === 'string' ? p.product.sku : null, pointer: splitPointer(w.pointer)[1], message: w.message });
      }
    }
    r.counts.valid += v.valid.length;
    // A sku twice in one chunk: the later row wins (one feed must not write a product twice).
    const last = new Map<string, (typeof v.valid)[number]>();
    for (const x of v.valid) {
      const before = last.get(x.product.sku);
      if (before !== undefined) {
        const p = products[before.index]!;
        r.counts.warnings++;
        if (r.warnings.length < MAX_LISTED) r.warnings.push({ [this.#where]: p.at, sku: x.product.sku, pointer: '/sku', message: `sku repeated at ${this.#where} ${products[x.index]!.at}; the later one is used` });
      }
      last.delete(x.product.sku);
      last.set(x.product.sku, x);
    }
    const unique = [...last.values()];
    const shopPk = this.#ctx.shopPk!;
    const changed = await this.#ctx.delta.changed(shopPk, unique.map((x) => ({ sku: x.product.sku, product: x.product })));
    r.counts.unchanged += unique.length - changed.length;
    this.#ctx.report.count('products_unchanged', unique.length - changed.length);
    if (changed.length === 0) return;
    const feed = await this.#ctx.services.feeds.submit({ shopPk, type: 'product_create', items: changed.map((c) => c.product), source: `connector:${this.#ctx.name}`, baseUrl: this.#ctx.baseUrl });
    // Hashes only after the feed exists: a crash in between re-sends these products, never skips them.
    await this.#ctx.delta.remember(shopPk, changed.map(({ sku, hash }) => ({ sku, hash })));
    r.counts.sent += changed.length;
    r.feeds.push({ pk: String(feed.pk), url: feedUrl(this.#ctx.baseUrl, feed.pk), items: changed.length });
    this.#ctx.report.feed(feed.pk);
    this.#ctx.report.count('products_sent', changed.length);
  }

  /** A product that could not be validated at all (a variation row without its product). */
  entry(at: number, sku: string | undefined, errors: FieldError[]): void {
    this.#report.counts.invalid++;
    this.#push({ [this.#where]: at, sku: sku ?? null, errors });
  }

  #entry(p: FileProduct | undefined, errors: (FieldError & { line?: number })[]): void {
    if (p === undefined) return;
    this.#push({ [this.#where]: p.at, sku: typeof p.product.sku === 'string' ? p.product.sku : null, errors });
  }

  #push(entry: ReportEntry): void {
    if (this.#report.errors.length < MAX_LISTED) this.#report.errors.push(entry);
  }
}

async function parseAndSend(ctx: Ctx, file: string, sender: ChunkSender, report: FileReport): Promise<void> {
  const o = ctx.options;
  if (o.format === 'csv') {
    const grouper = new CsvGrouper();
    for await (const row of readCsv(file, o.columns ?? {}, ctx.signal)) {
      report.counts.rows++;
      // Flush only before a product row, so a product's variation rows stay with it.
      if ((row.record.parent_sku ?? '').trim() === '' && grouper.order.length >= CHUNK) await sender.send(grouper.take());
      const r = grouper.add(row.record, row.line);
      if (r.error !== undefined) sender.entry(row.line, r.sku, [{ pointer: '/parent_sku', code: 'not_found', message: r.error }]);
    }
    await sender.send(grouper.take());
    return;
  }
  const products = o.format === 'json' ? await readJson(file) : await readXml(file, o.columns ?? {});
  report.counts.rows = products.length;
  for (let i = 0; i < products.length; i += CHUNK) await sender.send(products.slice(i, i + CHUNK));
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
    report.sha256 = await sha256Of(file);
    const seen = await ctx.processed.seen(report.sha256);
    if (seen !== null) {
      report.outcome = 'skipped';
      report.reason = `The file is byte-identical to ${seen.label}, done at ${seen.at}: nothing to do.`;
      return report;
    }
    await parseAndSend(ctx, file, new ChunkSender(ctx, report), report);
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
