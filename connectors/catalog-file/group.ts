// The rows of one grouping key -> one product with its variations. Parent rows give the
// product's fields (the first value of a field wins; continuations fill in); variation rows
// give variations, and the product fields no parent row gave. A parent without price or stock
// takes them from its variations (the lowest price, the sum of stock).
import { fillFromVariations } from '../sdk/index.ts';
import { variationKinds, type FileProduct } from './map.ts';
import type { MappedRow, RowMapper } from './row-map.ts';
import type { SummaryBuilder } from './summary.ts';

const fill = (into: Record<string, unknown>, from: Record<string, unknown>): void => {
  for (const [k, v] of Object.entries(from)) if (into[k] === undefined) into[k] = v;
};

/** What grouping made of a key's rows: a product, or rows refused with a reason. */
export type Grouped = { product: FileProduct } | { refused: { line: number; sku: string | null; message: string }[] };

function applyOptions(into: Record<string, unknown>, options: [string, string][], mapper: RowMapper, names: Map<string, string>): void {
  for (const [raw, value] of options) {
    const name = raw.startsWith('#') ? names.get(raw.slice(1)) : raw;
    if (name === undefined) continue;
    const field = mapper.optionField(name);
    if (field !== '' && into[field] === undefined) into[field] = value;
  }
}

/** `rows` share the grouping key `key`, in line order. */
export function groupRows(key: string, rows: MappedRow[], mapper: RowMapper, summary: SummaryBuilder, parentRowRequired: boolean): Grouped {
  const parents = rows.filter((r) => !r.child);
  const children = rows.filter((r) => r.child);
  const main = parents.filter((r) => !r.continues);
  if (main.length === 0 && parentRowRequired && children.some((r) => r.needsParent)) {
    return { refused: children.map((r) => ({ line: r.line, sku: r.sku, message: `its parent ${key} is not in the file` })) };
  }
  const names = new Map<string, string>();
  for (const r of rows) for (const [n, name] of Object.entries(r.optionNames)) if (!names.has(n)) names.set(n, name);
  const product: Record<string, unknown> = {};
  const productImages: string[] = [];
  for (const r of parents) {
    fill(product, r.productFields);
    fill(product, r.fields);
    fill(product, r.variationFields);
    productImages.push(...r.productImages, ...r.images, ...r.variationImages);
  }
  for (const r of main.slice(1))
    if (r.sku === main[0]!.sku)
      summary.warn('sku_repeated', `line ${r.line}: sku ${r.sku} again (its first row is used, later ones fill in)`);

  const variations: Record<string, unknown>[] = [];
  const variationsAt: number[] = [];
  const optionless: boolean[] = [];
  for (const c of children) {
    const v: Record<string, unknown> = {};
    const own: Record<string, unknown> = {};
    for (const [k, val] of Object.entries(c.fields)) (variationKinds.has(k) && k !== 'images' ? v : own)[k] = val;
    Object.assign(v, c.variationFields);
    fill(product, c.productFields);
    fill(product, own);
    productImages.push(...c.productImages);
    const images = [...c.variationImages, ...c.images];
    // A row with no variation of its own (Shopify's image rows) only adds to the product.
    if (v.sku === undefined) {
      productImages.push(...images);
      continue;
    }
    applyOptions(v, c.options, mapper, names);
    if (images.length > 0) v.images = [...new Set(images)];
    variations.push(v);
    variationsAt.push(c.line);
    optionless.push(c.options.length === 0);
  }

  const at = rows[0]!.line;
  if (main.length === 0) product.sku ??= key;
  // One variation without options (Shopify's "Default Title"): a simple product of that sku.
  if (main.length === 0 && variations.length === 1 && optionless[0] === true && mapper.preset.single_variation_product) {
    const v = variations.pop()!;
    variationsAt.pop();
    Object.assign(product, v);
    if (Array.isArray(v.images)) productImages.push(...(v.images as string[]));
  }
  // A parent's options its variations do not vary by (WooCommerce's non-variation attributes) are its own.
  const varied = new Set(children.flatMap((c) => c.options.map(([n]) => (n.startsWith('#') ? names.get(n.slice(1)) : n))));
  for (const r of parents)
    applyOptions(product, variations.length === 0 ? r.options : r.options.filter(([n]) => !varied.has(n)), mapper, names);
  if (variations.length > 0) {
    const filled = fillFromVariations(product, variations);
    if (filled.price) summary.converted('parent_price_from_variations');
    if (filled.stock) summary.converted('parent_stock_from_variations');
    product.variations = variations;
  }
  if (productImages.length > 0) product.images = [...new Set(productImages)];
  return { product: { product, at, variationsAt } };
}
