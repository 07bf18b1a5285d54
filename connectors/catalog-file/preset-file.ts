// A file read through a preset: source rows -> mapped rows (row-map.ts) staged on disk by the
// key they name; aliases resolved (stage A: a WooCommerce "id:12" parent, a Magento parent
// listing its children); rows regrouped by their product (stage B); each product built
// (group.ts) and handed over in batches. Rows may come in any order; memory holds one bucket.
import { userError } from '../sdk/index.ts';
import { groupRows } from './group.ts';
import type { FileProduct } from './map.ts';
import { effectivePreset, type PresetName } from './preset.ts';
import { streamOf, type InboxFile } from './inbox.ts';
import { readCsvRows } from './read-csv-rows.ts';
import { readDocumentRows } from './read-document.ts';
import { readXlsxRows } from './read-xlsx.ts';
import type { Batch, ReportEntry } from './report.ts';
import { blankRow, RowMapper, type MappedRow } from './row-map.ts';
import { applyModel, readProductModels, type ModelRecord, type ModelsFile } from './product-models.ts';
import type { RowReader } from './row.ts';
import { bucketsFor, Stage, withStageDir } from './stage.ts';
import type { SummaryBuilder } from './summary.ts';

/** The options of a connector the preset engine reads. */
export interface PresetOptions {
  preset: PresetName;
  format?: string;
  columns?: Record<string, string>;
  defaults?: Record<string, unknown>;
  image_base_url?: string;
  currency?: string;
  /** Akeneo's product model file (option product_models), open: the parents of variant rows. */
  models?: ModelsFile;
}

/** Rows handed from a reader to the mapper at a time. */
const ROW_BATCH = 1_000;
/** Products per batch handed over (the API's bulk size). */
export const PRODUCT_BATCH = 1_000;

type Staged = MappedRow & { group?: string };

/** A staged row as mapped (stage.ts leaves empty fields out). */
const hydrate = (r: Partial<Staged>): Staged => ({ ...blankRow(), ...r }) as Staged;
// options: left out when empty (stage.ts).
type Alias = { alias: string; to: string; options?: [string, string][] };

/** Bytes read from the file at a time by the XLSX and document readers. */
const READ_BYTES = 256 * 1024;

/**
 * The reader of the file's format (the extension's, unless `format` is given), over the file's
 * open handle. A document's item that cannot be read is `unreadable` (that row's refusal, with
 * its line); the items around it are read.
 */
function readerFor(
  format: string,
  o: { item_path?: string; locale?: string; scope?: string },
  unreadable: (e: { line: number; message: string }) => void,
): RowReader {
  const f = format.toLowerCase();
  if (f === 'csv' || f === 'txt') return readCsvRows;
  if (f === 'xlsx') {
    return async (file, batchSize, sink, signal) => {
      for await (const rows of readXlsxRows(streamOf(file, READ_BYTES, signal), { batch_size: batchSize, signal })) await sink(rows);
    };
  }
  if (f === 'xml' || f === 'json') {
    return async (file, batchSize, sink, signal) => {
      const opts = {
        format: f,
        item_path: o.item_path ?? '',
        locale: o.locale,
        scope: o.scope,
        batch_size: batchSize,
        signal,
        onItemError: unreadable,
      } as const;
      for await (const rows of readDocumentRows(streamOf(file, READ_BYTES, signal), opts)) await sink(rows);
    };
  }
  throw userError(`Files of format "${f}" are not read with a preset; use csv, xlsx, xml or json.`);
}

/**
 * Reads `file` with the preset of `o`, handing products to `emit` a batch at a time (each
 * awaited). Returns the file's summary; refused rows arrive as the batches' orphans.
 */
export async function readWithPreset(
  file: InboxFile,
  format: string,
  o: PresetOptions,
  summary: SummaryBuilder,
  emit: (batch: Batch) => Promise<void>,
  signal?: AbortSignal,
): Promise<void> {
  const preset = effectivePreset(o.preset, o);
  const mapper = new RowMapper(preset, summary, { imageBaseUrl: o.image_base_url, currency: o.currency });
  const bytes = file.size;
  const orphans: ReportEntry[] = [];
  const refuse = (line: number, sku: string | null, message: string, code = 'refused'): void => {
    summary.skip('refused', `line ${line}: ${message}`);
    orphans.push({ line, sku, errors: [{ pointer: '', code, message }] });
  };
  const read = readerFor(format, preset, (e) => refuse(e.line, null, `the item could not be read: ${e.message}`, 'unreadable'));

  await withStageDir(async (dir) => {
    const buckets = bucketsFor(bytes);
    const a = new Stage(dir, 'a', buckets);
    await read(
      file,
      ROW_BATCH,
      async (rows) => {
        signal?.throwIfAborted();
        for (const row of rows) {
          summary.s.rows++;
          const m = mapper.map(row);
          if ('skip' in m) summary.skip(m.skip, `line ${row.line}`);
          else if ('refuse' in m) refuse(row.line, m.sku, m.refuse);
          else {
            await a.write(m.row.ref, m.row as unknown as Record<string, unknown>);
            for (const al of m.row.aliases)
              if (m.row.sku !== null) await a.write(al.name, { alias: al.name, to: m.row.sku, options: al.options } satisfies Alias);
          }
        }
      },
      signal,
    );
    await a.close();
    if (summary.s.rows === 0) throw userError('The file has a header row but no product rows.');

    // Stage A: a row named by an alias belongs to the alias's product.
    const b = new Stage(dir, 'b', buckets);
    // Product models: root models staged by their code (their product's key), sub-models resolved to their root.
    const rootOf =
      o.models === undefined
        ? null
        : await readProductModels(
            o.models,
            readerFor(o.models.format, preset, (e) =>
              summary.warn('product_model_unreadable', `${o.models!.name} line ${e.line}: ${e.message}`),
            ),
            preset,
            summary,
            mapper.o,
            (m) => b.write(m.model, m as unknown as Record<string, unknown>),
            signal,
          );
    for (const f of a.files) {
      const records = (await Stage.read<Partial<Staged> | Alias>(f)).map((r) => ('alias' in r ? r : hydrate(r)));
      const aliases = new Map<string, Alias>();
      for (const r of records) if ('alias' in r) aliases.set(r.alias, r);
      for (const r of records) {
        if ('alias' in r) continue;
        const al = aliases.get(r.ref);
        let group = r.child ? (rootOf?.(r.ref) ?? r.ref) : r.ref;
        if (al !== undefined && al.to !== r.sku) {
          group = al.to;
          if (!r.child) {
            r.child = true;
            r.options = [...(al.options ?? []), ...r.options];
          }
        }
        r.group = group;
        await b.write(group, r as unknown as Record<string, unknown>);
      }
    }
    await b.close();

    // Stage B: the rows of each product together.
    let batch: FileProduct[] = [];
    const flush = async (): Promise<void> => {
      for (const { product } of batch) {
        summary.s.products++;
        const variations = Array.isArray(product.variations) ? (product.variations as { images?: unknown[] }[]) : [];
        summary.s.variations += variations.length;
        summary.s.images +=
          (Array.isArray(product.images) ? product.images.length : 0) + variations.reduce((n, v) => n + (v.images?.length ?? 0), 0);
      }
      await emit({ products: batch, rows: 0, orphans: orphans.splice(0) });
      batch = [];
    };
    for (const f of b.files) {
      const groups = new Map<string, Staged[]>();
      const models = new Map<string, ModelRecord>();
      for (const staged of await Stage.read<Partial<Staged> | ModelRecord>(f)) {
        if ('model' in staged) models.set(staged.model, staged);
        else {
          const r = hydrate(staged);
          (groups.get(r.group!) ?? groups.set(r.group!, []).get(r.group!)!).push(r);
        }
      }
      for (const [key, rows] of groups) {
        rows.sort((x, y) => x.line - y.line);
        const g = groupRows(key, rows, mapper, summary, preset.parent_row_required);
        if ('refused' in g) {
          for (const r of g.refused) refuse(r.line, r.sku, r.message, 'not_found');
          continue;
        }
        const model = models.get(key);
        if (model !== undefined) {
          applyModel(g.product.product, model);
          summary.converted('named_from_product_model');
        } else if (o.models !== undefined && rows.every((r) => r.child))
          summary.warn('product_model_unknown', `line ${rows[0]!.line}: ${key} is not in ${o.models.name} (named from its first variant)`);
        batch.push(g.product);
        if (batch.length >= PRODUCT_BATCH) await flush();
      }
    }
    if (batch.length > 0 || orphans.length > 0) await flush();
  });
}
