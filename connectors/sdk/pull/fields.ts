// A system's product mapping as data: a table of `waybill field <- path in the system's JSON`,
// each with an optional conversion. The same table could drive a file preset (a CSV column is a
// path of one segment), so one description of "a WooCommerce product" serves both.
export type Conversion =
  /** A number, or a numeric text ("12.50"); empty text and null: left out. */
  | 'number'
  /** A whole number >= 0 (stock). */
  | 'count'
  /** Text, trimmed; empty: left out. */
  | 'text'
  /** A list of objects or strings -> image addresses (`{url}` objects' or `src` fields). */
  | 'images'
  /** A date-time without a zone, as UTC (WooCommerce's `*_gmt` fields). */
  | 'utc';

export interface FieldRule {
  /** The waybill field (or category attribute) written. */
  to: string;
  /** Dot path in the system's JSON, first one present wins: `dimensions.width`. */
  from: string | string[];
  as?: Conversion;
  /** Values renamed (a system's enum to waybill's), applied after the conversion. */
  values?: Record<string, string>;
}

const at = (source: unknown, path: string): unknown =>
  path
    .split('.')
    .reduce<unknown>((v, key) => (v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined), source);

function convert(value: unknown, as: Conversion | undefined): unknown {
  if (value === undefined || value === null) return undefined;
  switch (as) {
    case 'number': {
      if (typeof value === 'number') return value;
      if (typeof value !== 'string' || value.trim() === '') return undefined;
      const n = Number(value.trim());
      return Number.isFinite(n) ? n : value;
    }
    case 'count': {
      const n = typeof value === 'number' ? value : Number(String(value).trim());
      return Number.isInteger(n) ? Math.max(0, n) : value;
    }
    case 'text': {
      const t = String(value).trim();
      return t === '' ? undefined : t;
    }
    case 'images': {
      // One image (a variation's `image`) or a list of them.
      return (Array.isArray(value) ? value : [value]).flatMap((v: unknown) => {
        const url = typeof v === 'string' ? v : ((v as Record<string, unknown> | null)?.url ?? (v as Record<string, unknown> | null)?.src);
        return typeof url === 'string' && url !== '' ? [url] : [];
      });
    }
    case 'utc': {
      if (typeof value !== 'string' || value === '') return undefined;
      return /([Zz]|[+-]\d{2}:?\d{2})$/.test(value) ? value : `${value}Z`;
    }
    default:
      return value;
  }
}

/** The waybill fields a table gives for one object of the system; absent values are left out. */
export function mapFields(source: unknown, rules: readonly FieldRule[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const rule of rules) {
    const paths = Array.isArray(rule.from) ? rule.from : [rule.from];
    let value: unknown;
    for (const p of paths) {
      value = convert(at(source, p), rule.as);
      if (value !== undefined) break;
    }
    if (value === undefined) continue;
    if (rule.values !== undefined && typeof value === 'string') value = rule.values[value] ?? value;
    if (Array.isArray(value) && value.length === 0) continue;
    out[rule.to] = value;
  }
  return out;
}
