// The report written beside each file (<file>.report.json).
import type { FieldError } from '../../src/errors.ts';

/** Entries kept in a report's errors and warnings; the counts stay exact. */
export const MAX_LISTED = 10_000;

export interface ReportEntry {
  /** CSV: the line of the product row; JSON/XML: the product's element number (1-based). */
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
  warnings: WarningEntry[];
}
