// Text values of an export as the API's fields: integer-valued decimals ("10.0000") as
// integers, prices with a currency ("15.00 USD"), dates as timestamps, units scaled, image
// addresses made absolute. Each change is counted in the file's summary; a value that does
// not convert stays text, so the API's validation names the field instead of guessing.
import { productKinds, variationKinds, coerce } from './map.ts';
import type { SummaryBuilder } from './summary.ts';

const INTEGER_VALUED = /^[+-]?\d+\.0+$/;
/** "15.00 USD", "USD 15.00", "1,299.00", "12,50 EUR". */
const MONEY = /^(?:([A-Z]{3})\s*)?([+-]?[\d.,]+)(?:\s*([A-Z]{3}))?$/;

/** "15.00 USD" or "USD 15.00" -> its amount's text and currency; null when it names no currency. */
export function moneyParts(text: string): { amount: string; currency: string } | null {
  const m = MONEY.exec(text.trim());
  const currency = m?.[1] ?? m?.[3];
  return m === null || currency === undefined ? null : { amount: m[2]!, currency };
}

/** "1,299.00" -> 1299, "1.299,00" -> 1299, "12,50" -> 12.5; null when it is no number. */
export function decimal(text: string): number | null {
  let t = text.trim();
  if (!/^[+-]?[\d.,]+$/.test(t) || !/\d/.test(t)) return null;
  const comma = t.lastIndexOf(',');
  const dot = t.lastIndexOf('.');
  if (comma !== -1 && dot !== -1) t = comma > dot ? t.replace(/\./g, '').replace(',', '.') : t.replace(/,/g, '');
  else if (comma !== -1) t = t.match(/,/g)!.length === 1 ? t.replace(',', '.') : t.replace(/,/g, '');
  const n = Number(t);
  return Number.isFinite(n) ? n : null;
}

/** "2024-05-01", "2024-05-01 10:00[:00]", ISO 8601 -> the API's "YYYY-MM-DDThh:mm:ss" (or ISO with its zone); null when unreadable. */
export function timestamp(text: string): string | null {
  // US month/day/year as Magento's admin exports them ("10/24/16", "10/24/2016, 12:36 PM"): the date.
  const us = /^(\d{1,2})\/(\d{1,2})\/(\d{2}|\d{4})\b/.exec(text.trim());
  if (us !== null) {
    const year = us[3]!.length === 2 ? `20${us[3]}` : us[3]!;
    return timestamp(`${year}-${us[1]!.padStart(2, '0')}-${us[2]!.padStart(2, '0')}`);
  }
  const m = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2})(:\d{2})?(\.\d+)?(Z|[+-]\d{2}:?\d{2})?)?$/.exec(text.trim());
  if (m === null) return null;
  const [, date, hm, s, , zone] = m;
  if (Number.isNaN(Date.parse(`${date}T00:00:00Z`))) return null;
  const local = `${date}T${hm ?? '00:00'}${s ?? ':00'}`;
  return zone === undefined ? local : `${local}${zone}`;
}

export interface ConvertContext {
  summary: SummaryBuilder;
  /** The `currency` option: a price in another currency is refused. */
  currency: string | undefined;
}

const kindOf = (field: string) => productKinds.get(field) ?? variationKinds.get(field);

/**
 * One text value of `field`. Returns `{ value }`, or `{ error }` for a value that must refuse
 * its row (a price in another currency). `column` names the source in the counts.
 */
export function convertValue(
  field: string,
  text: string,
  column: string,
  scale: number | undefined,
  c: ConvertContext,
): { value: unknown } | { error: string } {
  const kind = kindOf(field);
  const v = text.trim();
  if (kind === 'number') {
    const m = MONEY.exec(v);
    const currency = m?.[1] ?? m?.[3];
    let n = m === null ? null : decimal(m[2]!);
    if (n === null) return { value: v };
    if (currency !== undefined) {
      if (c.currency !== undefined && currency !== c.currency.toUpperCase())
        return { error: `${column} is in ${currency}, not in ${c.currency.toUpperCase()} (option currency)` };
      c.summary.converted('price_with_currency');
    }
    if (scale !== undefined) {
      n = Math.round(n * scale * 1e6) / 1e6;
      c.summary.converted(`unit:${column}`);
    }
    return { value: n };
  }
  if (kind === 'integer') {
    if (INTEGER_VALUED.test(v)) {
      c.summary.converted('integer_from_decimal');
      return { value: Number(v.slice(0, v.indexOf('.'))) };
    }
    return { value: coerce('integer', v) };
  }
  if (field === 'discount_from' || field === 'discount_to') return { value: timestamp(v) ?? v };
  return { value: kind === undefined ? v : coerce(kind, v) };
}

/** An image address as the API takes it: relative ones joined to `base`; null (with a warning) when unusable. */
export function imageAddress(raw: string, base: string | undefined, line: number, c: ConvertContext): string | null {
  const t = raw.trim();
  if (t === '') return null;
  let url = t;
  if (!/^[a-z][a-z0-9+.-]*:/i.test(t)) {
    if (base === undefined) {
      c.summary.warn('image_relative', `line ${line}: ${t.slice(0, 200)} (set the option image_base_url)`);
      return null;
    }
    url = `${base.replace(/\/+$/, '')}/${t.replace(/^\/+/, '')}`;
    c.summary.converted('image_base_url');
  }
  try {
    const u = new URL(url);
    // As written when the API takes it so (clients match images by it), else percent-encoded.
    if (u.protocol === 'http:' || u.protocol === 'https:') return /^\S+$/.test(url) ? url : u.href;
  } catch {
    // fall through: warned below
  }
  c.summary.warn('image_unusable', `line ${line}: ${t.slice(0, 200)}`);
  return null;
}
