// What a preset file's report says beside its counts: what was read, made, defaulted, converted,
// warned about and refused, each kind once with a count and its first examples (the counts stay
// exact, the examples stop at five).

/** Examples kept per warning or refusal kind. */
export const EXAMPLES = 5;

interface Kind {
  count: number;
  examples: string[];
}

export interface FileSummary {
  rows: number;
  products: number;
  variations: number;
  images: number;
  /** Required fields a product of the file lacked, the default a new one takes, and how many lacked it. */
  defaults: Record<string, { value: unknown; products: number }>;
  /** Values changed on the way in (`integer_from_decimal`, `unit:Variant Grams`, `sale_price_to_discount`...), counted. */
  conversions: Record<string, number>;
  warnings: Record<string, Kind>;
  /** Rows not read as products, by reason (store-view rows, parents not in the file...). */
  skipped: Record<string, Kind>;
  /** Source columns the preset does not map: dropped. */
  dropped_columns: string[];
}

export class SummaryBuilder {
  readonly s: FileSummary = {
    rows: 0,
    products: 0,
    variations: 0,
    images: 0,
    defaults: {},
    conversions: {},
    warnings: {},
    skipped: {},
    dropped_columns: [],
  };
  readonly #dropped = new Set<string>();

  static #add(to: Record<string, Kind>, kind: string, example: string): void {
    const k = to[kind] ?? (to[kind] = { count: 0, examples: [] });
    k.count++;
    if (k.examples.length < EXAMPLES) k.examples.push(example);
  }

  warn(kind: string, example: string): void {
    SummaryBuilder.#add(this.s.warnings, kind, example);
  }

  skip(reason: string, example: string): void {
    SummaryBuilder.#add(this.s.skipped, reason, example);
  }

  converted(kind: string, n = 1): void {
    this.s.conversions[kind] = (this.s.conversions[kind] ?? 0) + n;
  }

  defaulted(field: string, value: unknown): void {
    const d = this.s.defaults[field] ?? (this.s.defaults[field] = { value, products: 0 });
    d.products++;
  }

  dropColumn(name: string): void {
    if (this.#dropped.has(name)) return;
    this.#dropped.add(name);
    this.s.dropped_columns.push(name);
  }
}
