// Akeneo's product models (option product_models): the file of the models that variant products
// name by `parent`, kept in the inbox beside the product files and read with each of them, never
// imported itself. A root model is the product its variants become (its code the sku, its own
// values the product's: name, description, brand, images...); a sub-model (a model with a
// parent, Akeneo's second level) only leads its variants to its root. The file is opened as the
// inbox's files are (inbox.ts: no links, a regular file inside the inbox).
import path from 'node:path';
import { userError } from '../sdk/index.ts';
import { openInboxFile, type InboxFile } from './inbox.ts';
import type { Preset } from './preset.ts';
import { RowMapper, type MapOptions } from './row-map.ts';
import type { RowReader } from './row.ts';
import type { SummaryBuilder } from './summary.ts';

/** The product model file of a connector, open. */
export interface ModelsFile {
  file: InboxFile;
  /** Its format, by its extension: csv, xlsx, json (an API page). */
  format: string;
  /** The option's value, for the report. */
  name: string;
}

/** A root model's product fields, staged beside the rows of the product it names (stage.ts leaves empty ones out). */
export interface ModelRecord {
  model: string;
  fields?: Record<string, unknown>;
  images?: string[];
}

/** Sub-model code -> its root model's code (a chain is followed this far at most; Akeneo has two levels). */
const MAX_LEVELS = 8;

/**
 * Opens `<inbox>/<name>` (a path inside the inbox: the option's pattern allows no absolute path
 * and no `..`); null when there is no such file. A link or anything but a regular file inside
 * the inbox is the connector's user error: the product file is not read without its models.
 */
export async function openProductModels(inbox: string, name: string): Promise<ModelsFile | null> {
  const full = path.resolve(inbox, name);
  if (!full.startsWith(`${path.resolve(inbox)}${path.sep}`)) throw userError(`product_models ${name} is not inside the inbox.`);
  const opened = await openInboxFile(inbox, path.dirname(full), path.basename(full)).catch((error: unknown) => {
    // A folder on the way that is missing (or not a folder): no models file.
    if (['ENOENT', 'ENOTDIR'].includes((error as { code?: string }).code ?? '')) return null;
    throw error;
  });
  if (opened === null) return null;
  if ('refused' in opened) throw userError(`The product model file ${name} (option product_models) is not read: ${opened.refused}`);
  return { file: opened, format: path.extname(full).slice(1).toLowerCase().replace(/^txt$/, 'csv'), name };
}

/**
 * The connector's product model file: undefined without the option, null when the file is not
 * there (the products are then named from their first variant, with a warning).
 */
export async function productModelsOf(o: {
  inbox: string;
  preset?: string;
  product_models?: string;
}): Promise<ModelsFile | null | undefined> {
  if (o.product_models === undefined) return undefined;
  if (o.preset !== 'akeneo') throw userError('The option product_models is read with the akeneo preset only (option preset).');
  return openProductModels(path.resolve(o.inbox), o.product_models);
}

const fill = (into: Record<string, unknown>, from: Record<string, unknown>): void => {
  for (const [k, v] of Object.entries(from)) if (into[k] === undefined) into[k] = v;
};

/**
 * Reads the models with the preset's columns (`code` is the model's sku, `parent` its parent):
 * each root model's fields go to `stage`; returns the root of each model code.
 */
export async function readProductModels(
  models: ModelsFile,
  read: RowReader,
  preset: Preset,
  summary: SummaryBuilder,
  o: MapOptions,
  stage: (record: ModelRecord) => Promise<void>,
  signal?: AbortSignal,
): Promise<(code: string) => string | undefined> {
  const mapper = new RowMapper({ ...preset, columns: { ...preset.columns, code: 'sku' } }, summary, o);
  const parents = new Map<string, string | null>();
  await read(
    models.file,
    1_000,
    async (rows) => {
      signal?.throwIfAborted();
      for (const row of rows) {
        const m = mapper.map(row);
        if ('skip' in m) continue;
        if ('refuse' in m) {
          summary.warn('product_model_refused', `${models.name} line ${row.line}: ${m.refuse}`);
          continue;
        }
        const r = m.row;
        const code = r.sku!;
        parents.set(code, r.child ? r.ref : null);
        if (r.child) continue;
        const fields: Record<string, unknown> = {};
        fill(fields, r.productFields);
        fill(fields, r.fields);
        fill(fields, r.variationFields);
        delete fields.sku;
        await stage({ model: code, fields, images: [...new Set([...r.productImages, ...r.images, ...r.variationImages])] });
      }
    },
    signal,
  );
  return (code) => {
    if (!parents.has(code)) return undefined;
    let at = code;
    for (let i = 0; i < MAX_LEVELS; i++) {
      const up = parents.get(at);
      if (up === null || up === undefined) return at;
      at = up;
    }
    return at;
  };
}

/** The product of a root model's variants, named from the model: its fields over those taken from the first variant. */
export function applyModel(product: Record<string, unknown>, model: ModelRecord): void {
  for (const [k, v] of Object.entries(model.fields ?? {})) product[k] = v;
  const images = model.images ?? [];
  if (images.length > 0) product.images = [...new Set([...images, ...((product.images as string[] | undefined) ?? [])])];
}
