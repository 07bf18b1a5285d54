// A batch of a file's products into the catalog: validated with the products POST's rules,
// compared with what was last applied (delta), and the changed ones sent as one feed through
// the catalog port. The other files of the folder know only plain products and this result.
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
export async function submitProducts(ctx: ConnectorContext, products: Record<string, unknown>[]): Promise<Submitted> {
  const v = validateProducts(products, { inPlace: true });
  const refused = new Map<number, FieldError[]>();
  for (const e of v.errors) {
    const [index, pointer] = splitPointer(e.pointer);
    refused.set(index, [...(refused.get(index) ?? []), { ...e, pointer }]);
  }
  const out: Submitted = {
    refused: [...refused].map(([index, errors]) => ({ index, errors })),
    warnings: v.warnings.map((w) => ({ index: w.index, pointer: splitPointer(w.pointer)[1], message: w.message })),
    valid: v.valid.length,
    unchanged: 0,
    feed: null,
  };
  // The text a product's hash is of is also what the feed stores: it is built once.
  const hashed = v.valid.map(({ product }) => {
    const json = canonicalJson(product);
    return { sku: product.sku, product: json, hash: hashOfCanonical(json) };
  });
  const changed = await ctx.delta.changed(ctx.shopPk!, hashed);
  out.unchanged = hashed.length - changed.length;
  if (changed.length === 0) return out;
  const feed = await ctx.catalog.submitValidated(changed.map(({ sku, product, hash }) => ({ sku, json: product, hash })));
  out.feed = { pk: feed.pk, url: feed.url, items: feed.total };
  return out;
}
