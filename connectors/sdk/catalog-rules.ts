// Where a shop system's product becomes waybill's, the rules the file presets (catalog-file)
// and the API pulls (catalog-woocommerce, -shopify, -akeneo) share: one rule each, so the same
// product read from a system's export and pulled from its API is the same stored product (and
// hashes the same: a shop moving from files to the API sees no product as changed).

/** Option and attribute names (lower case) that are waybill fields; other names become attributes (attributeName). */
export const OPTION_FIELDS: Readonly<Record<string, string>> = {
  color: 'color',
  colour: 'color',
  farbe: 'color',
  'secondary color': 'secondary_color',
  size: 'size',
  größe: 'size',
  talla: 'size',
};

/** An option or column name as a category attribute's: lower case, runs of anything but letters and digits as `_` ("Sleeve length" -> sleeve_length). */
export const attributeName = (s: string): string =>
  s
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 100);

/** An option's name as waybill's field (`Colour` -> color) or attribute (`Material` -> material). */
export const optionField = (name: string): string => OPTION_FIELDS[name.trim().toLowerCase()] ?? attributeName(name);

/**
 * A sale as waybill's discount: the whole percentage off the regular price. null when there is
 * no sale (selling at or above the regular price); `outside` when it would be 100 % or more (a
 * free product is no discount waybill stores).
 */
export function discountOf(regular: number, selling: number): number | 'outside' | null {
  if (!(regular > 0) || !(selling < regular) || selling < 0) return null;
  const pct = Math.round((1 - selling / regular) * 100);
  return pct >= 1 && pct <= 99 ? pct : 'outside';
}

/** A sale's end date given without a time lasts to the end of that day, as WooCommerce, Magento and Google read it. */
export const saleEnd = (date: string): string => (/^\d{4}-\d{2}-\d{2}$/.test(date.trim()) ? `${date.trim()}T23:59:59` : date);

/**
 * A product with variations and no price or stock of its own takes the lowest variation price
 * and the sum of their stock (when every variation has one). Returns which it filled.
 */
export function fillFromVariations(
  product: Record<string, unknown>,
  variations: Record<string, unknown>[],
): { price: boolean; stock: boolean } {
  const filled = { price: false, stock: false };
  if (variations.length === 0) return filled;
  const prices = variations.map((v) => v.price).filter((p): p is number => typeof p === 'number');
  if (product.price === undefined && prices.length > 0) {
    product.price = Math.min(...prices);
    filled.price = true;
  }
  const stocks = variations.map((v) => v.stock);
  if (product.stock === undefined && stocks.every((s) => typeof s === 'number')) {
    product.stock = (stocks as number[]).reduce((a, b) => a + b, 0);
    filled.stock = true;
  }
  return filled;
}
