// Feed report items as clients read them, and the upgrade of reports stored in an older shape
// (before warnings were strings, images carried url_source, variation feeds reported the
// variation as product_pk and errors named product_pk/image_pk instead of `pk`). Reports are
// upgraded when read, so rows kept from before read like new ones; an item already in the
// current shape (it has `warnings`) is returned as it is.
import type { ItemError, ItemSuccess, ReportWarning } from '../catalog/apply/items.ts';
import { FEED_OPERATIONS } from '../catalog/apply/operations.ts';
import type { FeedType } from './feeds.schemas.ts';

/** `warning` (strings) and `warnings` (structured) of an item's validation warnings. */
export function withWarnings(item: ItemSuccess, warnings: ReportWarning[]): void {
  item.warnings = warnings;
  item.warning = warnings.map((w) => `${w.pointer}: ${w.message}`);
}

type Stored = Record<string, unknown>;
const isObject = (v: unknown): v is Stored => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A success item in the current shape. `feedProductPk`: the product of a variation or image feed. */
export function upgradeSuccess(type: FeedType, raw: Stored, feedProductPk: number | null): ItemSuccess {
  if (Array.isArray(raw.warnings)) return raw as unknown as ItemSuccess;
  const out: Stored = { ...raw };
  const old = Array.isArray(raw.warning) ? raw.warning : [];
  const structured = old.map((w) =>
    isObject(w)
      ? { pointer: String(w.pointer), code: 'unknown_field', message: String(w.message) }
      : { pointer: '', code: 'warning', message: String(w) },
  );
  out.warnings = structured;
  out.warning = structured.map((w) => (w.pointer === '' ? w.message : `${w.pointer}: ${w.message}`));
  if (Array.isArray(raw.images))
    out.images = raw.images.map((i) => (isObject(i) && i.url_source === undefined ? { ...i, url_source: i.url } : i));
  const report = FEED_OPERATIONS[type].report;
  if (report === 'variation' && typeof raw.variation_pk === 'number') {
    out.product_pk = raw.variation_pk;
    out.parent_pk = raw.product_pk ?? feedProductPk;
  }
  if (report === 'image' && typeof raw.url === 'string') {
    out.url_source = raw.url;
    delete out.url;
  }
  return out as unknown as ItemSuccess;
}

/** An error item in the current shape: the old `pk` becomes `product_pk` (a variation's in variation feeds) or `image_pk`. */
export function upgradeError(type: FeedType, raw: Stored, feedProductPk: number | null): ItemError {
  if (raw.pk === undefined) return raw as unknown as ItemError;
  const { pk, ...out } = raw;
  const report = FEED_OPERATIONS[type].report;
  if (report === 'image')
    return { ...out, ...(feedProductPk === null ? {} : { product_pk: feedProductPk }), image_pk: pk } as unknown as ItemError;
  if (report === 'variation')
    return { ...out, product_pk: pk, ...(feedProductPk === null ? {} : { parent_pk: feedProductPk }) } as unknown as ItemError;
  return { ...out, product_pk: pk } as unknown as ItemError;
}
