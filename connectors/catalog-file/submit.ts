// A batch of a file's products into the catalog: validated with the products POST's rules,
// compared with what was last applied (delta), and the changed ones sent as one feed through
// the catalog port. The other files of the folder know only plain products and this result.
import { setImmediate } from 'node:timers/promises';
import { canonicalJson, hashOfCanonical, validateProducts, type ConnectorContext, type FieldError } from '../sdk/index.ts';

export interface Submitted {
  /** Products refused by validation: their index in the batch, errors pointing inside the product. */
  refused: { index: number; errors: FieldError[] }[];
  /** Unknown fields removed from valid products (pointer inside the product). */
  warnings: { index: number; pointer: string; message: string }[];
  valid: number;
  /** Valid products whose content is the one last applied for their sku: not sent. */
  unchanged: number;
  /** The feed of the changed products; null when there were none. */
  feed: { pk: string; url: string; items: number } | null;
}

/** Products validated and hashed in one turn of the event loop. */
const SLICE = 100;

/** "/3/variations/0/price" -> [3, "/variations/0/price"]. */
const splitPointer = (pointer: string): [number, string] => {
  const m = /^\/(\d+)(.*)$/.exec(pointer);
  return m === null ? [-1, pointer] : [Number(m[1]), m[2] ?? ''];
};

/**
 * Validates a batch of products and sends the changed valid ones as one feed. `products` are
 * the caller's own (unknown fields are removed in place) and have one sku each. Each item
 * carries its content hash: the feed worker records it when it applies the item, so a product
 * never stored is sent again next time.
 */
/**
 * Merge (a preset's file): products are partial (nothing but sku required); an existing product
 * keeps what the file does not carry, a new one lacking a required field takes `defaults`.
 * `lacked` hears of each product lacking a defaulted field.
 */
export interface MergeMode {
  defaults: Record<string, unknown>;
  lacked(field: string, value: unknown): void;
}

const REQUIRED = ['name', 'price', 'stock'];

export async function submitProducts(ctx: ConnectorContext, products: Record<string, unknown>[], merge?: MergeMode): Promise<Submitted> {
  const refused = new Map<number, FieldError[]>();
  const warnings: Submitted['warnings'] = [];
  const hashed: { sku: string; product: string; hash: string }[] = [];
  // A slice at a time, the event loop served in between: a batch of wide products takes long.
  for (let start = 0; start < products.length; start += SLICE) {
    if (start > 0) await setImmediate();
    const v = validateProducts(products.slice(start, start + SLICE), { inPlace: true, partial: merge !== undefined });
    for (const e of v.errors) {
      const [index, pointer] = splitPointer(e.pointer);
      refused.set(start + index, [...(refused.get(start + index) ?? []), { ...e, pointer }]);
    }
    for (const w of v.warnings) warnings.push({ index: start + w.index, pointer: splitPointer(w.pointer)[1], message: w.message });
    // The text a product's hash is of is also what the feed stores: it is built once.
    for (const { product } of v.valid) {
      const json = canonicalJson(merge === undefined ? product : mergeItem(product as Record<string, unknown>, merge));
      hashed.push({ sku: product.sku, product: json, hash: hashOfCanonical(json) });
    }
  }
  const out: Submitted = {
    refused: [...refused].map(([index, errors]) => ({ index, errors })),
    warnings,
    valid: hashed.length,
    unchanged: 0,
    feed: null,
  };
  const changed = await ctx.delta.changed(ctx.shopPk!, hashed);
  out.unchanged = hashed.length - changed.length;
  if (changed.length === 0) return out;
  const feed = await ctx.catalog.submitValidated(
    changed.map(({ sku, product, hash }) => ({ sku, json: product, hash })),
    { merge: merge !== undefined },
  );
  out.feed = { pk: feed.pk, url: feed.url, items: feed.total };
  return out;
}

/** A merge feed's item: the product, and the defaults of the required fields it lacks. */
function mergeItem(
  product: Record<string, unknown>,
  merge: MergeMode,
): { product: Record<string, unknown>; defaults?: Record<string, unknown> } {
  const defaults: Record<string, unknown> = {};
  for (const f of REQUIRED) {
    if (product[f] !== undefined || merge.defaults[f] === undefined) continue;
    defaults[f] = merge.defaults[f];
    merge.lacked(f, merge.defaults[f]);
  }
  return Object.keys(defaults).length === 0 ? { product } : { product, defaults };
}
