// `waybill connectors preview <name> <file>`: what this connector would make of a file, writing
// nothing: its first products as they would be sent, and the file's summary (with the rows and
// products it would refuse, and why).
import fs from 'node:fs/promises';
import { userError, validateProducts } from '../sdk/index.ts';
import type { InboxFile } from './inbox.ts';
import type { CatalogFileOptions } from './options.ts';
import { readWithPreset } from './preset-file.ts';
import { productModelsOf } from './product-models.ts';
import { formatOfName } from './process-file.ts';
import { readCsv } from './read-csv.ts';
import { readJson } from './read-json.ts';
import { readXml } from './read-xml.ts';
import type { Batch } from './report.ts';
import { SummaryBuilder } from './summary.ts';

/** Products each refusal kind lists as examples. */
const EXAMPLES = 5;

export async function previewFile(o: CatalogFileOptions, file: string, limit: number): Promise<{ products: unknown[]; summary: unknown }> {
  const handle = await fs.open(file, 'r').catch(() => null);
  const st = handle === null ? null : await handle.stat();
  if (handle === null || st === null || !st.isFile()) {
    await handle?.close();
    throw userError(`${file} is not a file.`);
  }
  try {
    return await previewOpen(o, { handle, size: st.size }, formatOfName(file), limit);
  } finally {
    await handle.close();
  }
}

async function previewOpen(
  o: CatalogFileOptions,
  file: InboxFile,
  named: string,
  limit: number,
): Promise<{ products: unknown[]; summary: unknown }> {
  const format = o.format ?? named;
  const products: unknown[] = [];
  const summary = new SummaryBuilder();
  const refused: { at: number; sku: unknown; errors: string[] }[] = [];
  let invalid = 0;
  const take = async (batch: Batch): Promise<void> => {
    const v = validateProducts(
      batch.products.map((p) => p.product),
      { inPlace: true, partial: o.preset !== undefined },
    );
    const bad = new Map<number, string[]>();
    for (const e of v.errors) {
      const m = /^\/(\d+)(.*)$/.exec(e.pointer);
      const i = Number(m?.[1] ?? -1);
      bad.set(i, [...(bad.get(i) ?? []), `${m?.[2] ?? e.pointer}: ${e.message}`]);
    }
    invalid += bad.size;
    for (const [i, errors] of bad)
      if (refused.length < EXAMPLES) refused.push({ at: batch.products[i]!.at, sku: batch.products[i]!.product.sku ?? null, errors });
    for (const { product } of v.valid) if (products.length < limit) products.push(product);
  };
  if (o.preset !== undefined) {
    const models = await productModelsOf(o);
    if (models === null)
      summary.warn('product_models_missing', `${o.product_models} is not in the inbox: products named from their first variant`);
    try {
      await readWithPreset(file, format, { ...o, preset: o.preset, models: models ?? undefined }, summary, take);
    } finally {
      await models?.file.handle.close();
    }
    return { products, summary: { ...summary.s, invalid_products: { count: invalid, examples: refused } } };
  }
  let rows = 0;
  if (format === 'csv')
    await readCsv(file, o.columns, 1_000, async (b) => {
      rows += b.rows;
      await take(b);
    });
  else if (format === 'json' || format === 'xml') {
    for await (const batch of format === 'json' ? readJson(file, 1_000) : readXml(file, 1_000, o.columns)) {
      rows += batch.length;
      await take({ products: batch, rows: batch.length, orphans: [] });
    }
  } else throw userError(`Files of format "${format}" are read with a preset only (option preset).`);
  return { products, summary: { rows, invalid_products: { count: invalid, examples: refused } } };
}
