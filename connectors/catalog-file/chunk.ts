// The CPU side of a file, run in a worker thread: parse, group, validate with the API's rules,
// keep one product per sku, hash. Yields chunks of at most 1,000 products ready to send, each
// product as its canonical JSON text (the text its hash is of): the main thread hands the
// texts to FeedService.submitValidated without building, validating or serializing them again.
import { validateProducts } from '../../src/catalog/product-validation.ts';
import { canonicalJson, hashOfCanonical } from '../../src/connectors/host/run-context.ts';
import type { FieldError } from '../../src/errors.ts';
import { CsvGrouper, lineOf, type FileProduct } from './map.ts';
import { readCsv } from './parse-csv.ts';
import { readJson } from './parse-json.ts';
import { readXml } from './parse-xml.ts';
import { MAX_LISTED, type ReportEntry, type WarningEntry } from './report.ts';

/** Products per feed (the API's bulk size). */
export const CHUNK = 1_000;

export interface PreparedChunk {
  counts: { products: number; variations: number; valid: number; invalid: number; warnings: number };
  /** At most MAX_LISTED per chunk; the caller caps the report's total. */
  errors: ReportEntry[];
  warnings: WarningEntry[];
  /**
   * Valid products (validated by validateProducts: category attributes kept, unknown fields in images removed and warned about),
   * one per sku (the later row wins): canonicalJson of each, and its content hash.
   */
  items: { sku: string; json: string; hash: string }[];
}

/** Splits "/3/variations/0/price" into product 3 and "/variations/0/price". */
const splitPointer = (pointer: string): [number, string] => {
  const m = /^\/(\d+)(.*)$/.exec(pointer);
  return m === null ? [-1, pointer] : [Number(m[1]), m[2] ?? ''];
};

const skuOf = (p: FileProduct | undefined): string | null => (typeof p?.product.sku === 'string' ? p.product.sku : null);

export function prepareChunk(products: FileProduct[], where: 'line' | 'element', orphans: ReportEntry[] = []): PreparedChunk {
  const out: PreparedChunk = {
    counts: { products: products.length, variations: 0, valid: 0, invalid: orphans.length, warnings: 0 },
    errors: [...orphans], warnings: [], items: [],
  };
  for (const p of products) out.counts.variations += Array.isArray(p.product.variations) ? p.product.variations.length : 0;
  if (products.length === 0) return out;
  // The products were built for this chunk: validated in place (unknown image fields removed), not copied.
  const v = validateProducts(products.map((p) => p.product), { inPlace: true });
  const byIndex = new Map<number, (FieldError & { line?: number })[]>();
  for (const e of v.errors) {
    const [i, pointer] = splitPointer(e.pointer);
    const p = products[i];
    const list = byIndex.get(i) ?? [];
    list.push({ ...e, pointer, ...(where === 'line' && p !== undefined ? { line: lineOf(p, pointer) } : {}) });
    byIndex.set(i, list);
  }
  out.counts.invalid += byIndex.size;
  for (const [i, errors] of byIndex) if (out.errors.length < MAX_LISTED) out.errors.push({ [where]: products[i]?.at, sku: skuOf(products[i]), errors });
  const warn = (w: WarningEntry): void => {
    out.counts.warnings++;
    if (out.warnings.length < MAX_LISTED) out.warnings.push(w);
  };
  for (const w of v.warnings) {
    const p = products[w.index];
    if (p !== undefined) warn({ [where]: p.at, sku: skuOf(p), pointer: splitPointer(w.pointer)[1], message: w.message });
  }
  out.counts.valid = v.valid.length;
  // A sku twice in one chunk: the later row wins (one feed must not write a product twice).
  const last = new Map<string, (typeof v.valid)[number]>();
  for (const x of v.valid) {
    const before = last.get(x.product.sku);
    if (before !== undefined) {
      warn({ [where]: products[before.index]!.at, sku: x.product.sku, pointer: '/sku', message: `sku repeated at ${where} ${products[x.index]!.at}; the later one is used` });
    }
    last.delete(x.product.sku);
    last.set(x.product.sku, x);
  }
  out.items = [...last.values()].map((x) => {
    const json = canonicalJson(x.product);
    return { sku: x.product.sku, json, hash: hashOfCanonical(json) };
  });
  return out;
}

/** Reads a whole file as prepared chunks, calling emit for each (awaited: backpressure). Returns the rows read. */
export async function readChunks(file: string, format: 'csv' | 'json' | 'xml', columns: Record<string, string>, emit: (chunk: PreparedChunk) => Promise<void>): Promise<number> {
  if (format !== 'csv') {
    const products = format === 'json' ? await readJson(file) : await readXml(file, columns);
    for (let i = 0; i < products.length; i += CHUNK) await emit(prepareChunk(products.slice(i, i + CHUNK), 'element'));
    return products.length;
  }
  let grouper: CsvGrouper | null = null;
  let orphans: ReportEntry[] = [];
  let rows = 0;
  for await (const batch of readCsv(file, columns)) {
    grouper ??= new CsvGrouper(batch.fields);
    for (const row of batch.rows) {
      rows++;
      // Flush only before a product row, so a product's variation rows stay with it.
      if (grouper.order.length >= CHUNK && grouper.startsProduct(row.cells)) {
        await emit(prepareChunk(grouper.take(), 'line', orphans));
        orphans = [];
      }
      const r = grouper.add(row.cells, row.line);
      if (r.error !== undefined) orphans.push({ line: row.line, sku: r.sku ?? null, errors: [{ pointer: '/parent_sku', code: 'not_found', message: r.error }] });
    }
  }
  if (grouper !== null) await emit(prepareChunk(grouper.take(), 'line', orphans));
  return rows;
}
