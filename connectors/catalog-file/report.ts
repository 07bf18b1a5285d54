// The report written beside each file (<file>.report.json), and how a batch's outcome adds to it.
import { lineOf, type FileProduct } from './map.ts';
import type { FieldError } from '../sdk/index.ts';
import type { Submitted } from './submit.ts';
import type { FileSummary } from './summary.ts';

/** Entries kept in a report's errors and warnings; the counts stay exact. */
export const MAX_LISTED = 10_000;

/** Where a product came from: its CSV line, or its element number (JSON, XML; from 1). */
export type Where = 'line' | 'element';

export interface ReportEntry {
  line?: number;
  element?: number;
  sku: string | null;
  errors: (FieldError & { line?: number })[];
}

export interface WarningEntry {
  line?: number;
  element?: number;
  sku: string | null;
  pointer: string;
  message: string;
}

/** What a reader hands over at a time: products to submit together, and the rows they came from. */
export interface Batch {
  products: FileProduct[];
  /** Rows of the file read for this batch (CSV: data rows; JSON, XML: products). */
  rows: number;
  /** CSV variation rows whose product is not in the batch: errors of their line. */
  orphans: ReportEntry[];
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
  counts: {
    rows: number;
    products: number;
    variations: number;
    valid: number;
    invalid: number;
    unchanged: number;
    sent: number;
    warnings: number;
  };
  feeds: { pk: string; url: string; items: number }[];
  errors: ReportEntry[];
  warnings: WarningEntry[];
  /** Files read with a preset: what was read, made, defaulted, converted, warned about and skipped. */
  summary?: FileSummary;
}

export function newReport(file: string, connector: string, runId: number, format: string): FileReport {
  return {
    file,
    connector,
    run_id: runId,
    format,
    outcome: 'done',
    reason: null,
    sha256: null,
    bytes: null,
    started_at: new Date().toISOString(),
    finished_at: null,
    counts: { rows: 0, products: 0, variations: 0, valid: 0, invalid: 0, unchanged: 0, sent: 0, warnings: 0 },
    feeds: [],
    errors: [],
    warnings: [],
  };
}

const skuOf = (p: FileProduct): string | null => (typeof p.product.sku === 'string' ? p.product.sku : null);

/**
 * Adds a batch to the report: `sent` are the batch's products that were submitted (one per
 * sku), `repeated` the ones a later row of the same sku replaced, `result` what submitting gave.
 */
export function addBatch(
  report: FileReport,
  where: Where,
  batch: Batch,
  sent: FileProduct[],
  repeated: { earlier: FileProduct; later: FileProduct }[],
  result: Submitted,
): void {
  const c = report.counts;
  c.rows += batch.rows;
  c.products += batch.products.length;
  for (const p of batch.products) c.variations += Array.isArray(p.product.variations) ? p.product.variations.length : 0;
  c.valid += result.valid;
  c.invalid += batch.orphans.length + result.refused.length;
  c.unchanged += result.unchanged;
  c.sent += result.feed?.items ?? 0;
  if (result.feed !== null) report.feeds.push(result.feed);

  const error = (e: ReportEntry): void => void (report.errors.length < MAX_LISTED && report.errors.push(e));
  const warn = (w: WarningEntry): void => {
    c.warnings++;
    if (report.warnings.length < MAX_LISTED) report.warnings.push(w);
  };
  for (const o of batch.orphans) error(o);
  for (const { index, errors } of result.refused) {
    const p = sent[index]!;
    // CSV: each error names its line (a variation's own row when it is in one).
    error({ [where]: p.at, sku: skuOf(p), errors: where === 'line' ? errors.map((e) => ({ ...e, line: lineOf(p, e.pointer) })) : errors });
  }
  for (const w of result.warnings) warn({ [where]: sent[w.index]!.at, sku: skuOf(sent[w.index]!), pointer: w.pointer, message: w.message });
  for (const { earlier, later } of repeated)
    warn({
      [where]: earlier.at,
      sku: skuOf(earlier),
      pointer: '/sku',
      message: `sku repeated at ${where} ${later.at}; the later one is used`,
    });
}
