// A JSON item (an Akeneo product, a product model, any object) as SourceRow fields: nested keys
// joined by `.`, lists of plain values joined by `,`, lists of objects as repeated names. Akeneo's
// `values` ({attr: [{locale, scope, data}]}) give one field per attribute, `values.<attr>`, from
// the entry of the wanted locale and scope.
type Fields = Array<[name: string, value: string]>;

export interface ValueScope {
  /** Akeneo locale of localizable values (default en_US). */
  locale: string;
  /** Akeneo channel of scopable values (default ecommerce). */
  scope: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A plain value as text; null as ''. */
function text(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

const isPlain = (v: unknown): boolean => v === null || ['string', 'number', 'boolean'].includes(typeof v);

/** Any value under `name`: objects by their keys, plain lists joined by `,`, lists of objects repeated. */
function flattenInto(out: Fields, name: string, v: unknown): void {
  if (Array.isArray(v)) {
    if (v.every(isPlain)) out.push([name, v.map(text).join(',')]);
    else for (const x of v) flattenInto(out, name, x);
    return;
  }
  if (isObject(v)) {
    // Own keys only (JSON.parse makes `__proto__` an own key: it stays a plain name).
    for (const k of Object.keys(v)) flattenInto(out, name === '' ? k : `${name}.${k}`, v[k]);
    return;
  }
  out.push([name, text(v)]);
}

/** An Akeneo value entry: `{locale, scope, data}` (the API adds `linked_data`, `_links`). */
interface Entry {
  locale?: string | null;
  scope?: string | null;
  data?: unknown;
  _links?: unknown;
}

const isEntryList = (v: unknown): v is Entry[] => Array.isArray(v) && v.length > 0 && v.every((e) => isObject(e) && 'data' in e);

/**
 * The entry for `want`: its locale and scope, or null where the attribute is not localizable or
 * not scopable. An exact match wins over one that is null on a side; none fits: no field.
 */
function pick(entries: Entry[], want: ValueScope): Entry | undefined {
  let best: Entry | undefined;
  let bestScore = -1;
  for (const e of entries) {
    const locale = e.locale ?? null;
    const scope = e.scope ?? null;
    if ((locale !== null && locale !== want.locale) || (scope !== null && scope !== want.scope)) continue;
    const score = (locale === null ? 0 : 2) + (scope === null ? 0 : 1);
    if (score > bestScore) [best, bestScore] = [e, score];
  }
  return best;
}

const href = (e: Entry): string | undefined => {
  const links = e._links;
  if (!isObject(links) || !isObject(links.download)) return undefined;
  return typeof links.download.href === 'string' ? links.download.href : undefined;
};

/**
 * One Akeneo value as fields named `values.<attr>`. Prices (`[{amount, currency}]`) give one
 * `values.<attr>` field per currency ("15.00 USD", in the file's order) and, per currency,
 * `values.<attr>.<currency>` with the amount alone; a measure (`{amount, unit}`) is "1.5 KILOGRAM";
 * a media file is its download link when the API gives one, else its file path.
 */
function akeneoValue(out: Fields, name: string, e: Entry): void {
  const data = e.data;
  const link = href(e);
  if (link !== undefined) {
    out.push([name, link]);
    return;
  }
  if (Array.isArray(data) && data.length > 0 && data.every((p) => isObject(p) && 'amount' in p && 'currency' in p)) {
    const prices = data as Array<{ amount: unknown; currency: unknown }>;
    for (const p of prices) if (p.amount !== null) out.push([name, `${text(p.amount)} ${text(p.currency)}`]);
    for (const p of prices) if (p.amount !== null) out.push([`${name}.${text(p.currency)}`, text(p.amount)]);
    return;
  }
  if (isObject(data) && 'amount' in data && 'unit' in data) {
    out.push([name, data.amount === null ? '' : `${text(data.amount)} ${text(data.unit)}`]);
    return;
  }
  flattenInto(out, name, data);
}

/** An item's fields: `values` read as Akeneo values when shaped so, everything else flattened. */
export function flattenItem(item: unknown, want: ValueScope): Fields {
  const out: Fields = [];
  if (!isObject(item)) {
    flattenInto(out, 'value', item);
    return out;
  }
  for (const key of Object.keys(item)) {
    const v = item[key];
    if (key === 'values' && isObject(v)) {
      for (const attr of Object.keys(v)) {
        const entries = v[attr];
        if (!isEntryList(entries)) {
          flattenInto(out, `values.${attr}`, entries);
          continue;
        }
        const e = pick(entries, want);
        if (e !== undefined) akeneoValue(out, `values.${attr}`, e);
      }
      continue;
    }
    flattenInto(out, key, v);
  }
  return out;
}
