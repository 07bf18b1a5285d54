// One source row through a preset: each column resolved once (user columns, the preset's
// columns, then built-in field names, all ignoring case), values converted, and the row's
// part in grouping (its key, parent, aliases) taken apart. The result is plain JSON: it is
// staged on disk (stage.ts) before rows are grouped into products (group.ts).
import { attributeName, discountOf, OPTION_FIELDS, saleEnd } from '../sdk/index.ts';
import { convertValue, decimal, imageAddress, moneyParts, timestamp, type ConvertContext } from './convert.ts';
import { productKinds, variationKinds } from './map.ts';
import type { ColumnSpec, Preset } from './preset.ts';
import type { SourceRow } from './row.ts';
import type { SummaryBuilder } from './summary.ts';

export type Level = 'any' | 'product' | 'variation';

/** A row ready for grouping. Field maps are null-prototype-free plain JSON. */
export interface MappedRow {
  line: number;
  sku: string | null;
  /** Where the row is looked up for grouping: its parent or key as written, else its own sku. */
  ref: string;
  /** A variation row (it names a parent or a key); aliases may make a row one later. */
  child: boolean;
  /** It named a `$parent`: its parent row must be in the file (unless the preset says otherwise). */
  needsParent: boolean;
  /** A continuation of the row above (its fields fill in that product's). */
  continues: boolean;
  fields: Record<string, unknown>;
  productFields: Record<string, unknown>;
  variationFields: Record<string, unknown>;
  images: string[];
  productImages: string[];
  variationImages: string[];
  /** [name, value]; a name not on this row is `#N`, named by another row of the product (Shopify). */
  options: [string, string][];
  /** Option names by their number, as this row gives them. */
  optionNames: Record<string, string>;
  /** Other names of this row's product: variations naming them belong to it (with their options). */
  aliases: { name: string; options: [string, string][] }[];
}

interface Plan {
  /** Target field or role, without its level prefix. */
  to: string;
  level: Level;
  spec: Exclude<ColumnSpec, string> | null;
  column: string;
}

/** A price of a column that gives the price per currency (ColumnSpec `currency`). */
interface Offer {
  plan: Plan;
  amount: string;
  currency: string;
}

const ROLE_OPTION = /^\$option_(name|value):(\d+)$/;
const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Fields a source column may name by itself (any case); stamps the server keeps itself are not read. */
const KNOWN = new Set(
  [...productKinds.keys(), ...variationKinds.keys()].filter(
    (f) => !['pk', 'created_at', 'updated_at', 'deleted_at', 'variations'].includes(f),
  ),
);

export interface MapOptions {
  imageBaseUrl: string | undefined;
  currency: string | undefined;
}

/** Maps the rows of one file; keeps the columns' plans and the row above (continuations). */
/** A mapped row with nothing in it yet (fresh lists and maps: the mapper fills them in). */
export const blankRow = (): MappedRow => ({
  line: 0,
  sku: null,
  ref: '',
  child: false,
  needsParent: false,
  continues: false,
  fields: {},
  productFields: {},
  variationFields: {},
  images: [],
  productImages: [],
  variationImages: [],
  options: [],
  optionNames: {},
  aliases: [],
});

export class RowMapper {
  readonly #plans = new Map<string, Plan | null>();
  readonly #columns: Map<string, ColumnSpec>;
  /** Columns named with `{currency}` (Akeneo's `price-{currency}`): the name's pattern, the code captured. */
  readonly #perCurrency: { name: RegExp; spec: ColumnSpec }[];
  readonly #options: Map<string, string>;
  readonly #noOption: Set<string>;
  readonly #c: ConvertContext;
  #above: { ref: string; child: boolean } | null = null;

  readonly preset: Preset;
  readonly summary: SummaryBuilder;
  readonly o: MapOptions;

  constructor(preset: Preset, summary: SummaryBuilder, o: MapOptions) {
    this.preset = preset;
    this.summary = summary;
    this.o = o;
    this.#columns = new Map(Object.entries(preset.columns).map(([k, v]) => [k.trim().toLowerCase(), v]));
    this.#perCurrency = [...this.#columns]
      .filter(([k]) => k.includes('{currency}'))
      .map(([k, spec]) => ({ name: new RegExp(`^${k.split('{currency}').map(escapeRegExp).join('([a-z]{3})')}$`), spec }));
    this.#options = new Map(Object.entries({ ...OPTION_FIELDS, ...preset.options }).map(([k, v]) => [k.toLowerCase(), v]));
    this.#noOption = new Set(preset.no_option_values.map((v) => v.toLowerCase()));
    this.#c = { summary, currency: o.currency };
  }

  #plan(name: string): Plan | null {
    let p = this.#plans.get(name);
    if (p !== undefined) return p;
    const key = name.replace(/^\uFEFF/, '').trim();
    const raw = this.#columns.get(key.toLowerCase()) ?? this.#currencyColumn(key.toLowerCase());
    if (raw !== undefined) {
      const spec = typeof raw === 'string' ? null : raw;
      const target = typeof raw === 'string' ? raw : raw.to;
      const m = /^(product|variation)\.(.+)$/.exec(target);
      p = target === '$drop' ? null : { to: m?.[2] ?? target, level: (m?.[1] as Level | undefined) ?? 'any', spec, column: key };
    } else if (KNOWN.has(key.toLowerCase())) {
      p = { to: key.toLowerCase(), level: 'any', spec: null, column: key };
    } else if (this.preset.unmapped === 'attribute' && attributeName(key) !== '') {
      p = { to: attributeName(key), level: 'any', spec: null, column: key };
    } else {
      this.summary.dropColumn(key);
      p = null;
    }
    this.#plans.set(name, p);
    return p;
  }

  /** A column of a `{currency}` name: its spec, with the currency the name gives. */
  #currencyColumn(name: string): ColumnSpec | undefined {
    for (const c of this.#perCurrency) {
      const code = c.name.exec(name)?.[1];
      if (code !== undefined) return { ...(typeof c.spec === 'string' ? { to: c.spec } : c.spec), currency: code.toUpperCase() };
    }
    return undefined;
  }

  /** The option name as a field (color, size...) or an attribute name. */
  optionField(name: string): string {
    return this.#options.get(name.trim().toLowerCase()) ?? attributeName(name);
  }

  isNoOption(value: string): boolean {
    return this.#noOption.has(value.trim().toLowerCase());
  }

  /** The row as a MappedRow; a skip reason; or a refusal (the row's errors). */
  map(row: SourceRow): { row: MappedRow } | { skip: string } | { refuse: string; sku: string | null } {
    const r: MappedRow = { ...blankRow(), line: row.line };
    let parent = '';
    let key = '';
    let continues = false;
    const optionNames = new Map<string, string>();
    const optionValues = new Map<string, string>();
    const sale: { price?: string; from?: string; to?: string; compareAt?: string } = {};
    const aliases: string[] = [];
    let children = '';
    const offers: Offer[] = [];
    for (const [name, text] of row.fields) {
      const p = this.#plan(name);
      if (p === null) continue;
      const v = text.trim();
      if (p.to === '$continues') {
        if (v === '') continues = true;
        continue;
      }
      if (v === '') continue;
      switch (p.to) {
        case '$skip':
          return { skip: p.spec?.reason ?? `${p.column} is set` };
        case '$key':
          key = v;
          continue;
        case '$parent':
          parent = v;
          continue;
        case '$alias':
          aliases.push(`${p.spec?.prefix ?? ''}${v}`);
          continue;
        case '$children':
          children = v;
          continue;
        case '$sale_price':
          sale.price = v;
          continue;
        case '$sale_from':
          sale.from = v;
          continue;
        case '$sale_to':
          sale.to = v;
          continue;
        case '$sale_dates': {
          // An ISO 8601 interval "start/end" (Google's sale_price_effective_date).
          const [from = '', to = ''] = v.split('/').map((d) => d.trim());
          if (from !== '') sale.from = from;
          if (to !== '') sale.to = to;
          continue;
        }
        case '$compare_at_price':
          sale.compareAt = v;
          continue;
        case '$pairs':
          for (const [k, val] of pairs(v, ',')) this.#set(r, this.optionField(k), val, 'any', p.column);
          continue;
        case '$image': {
          const list = p.spec?.split === undefined ? [v] : v.split(p.spec.split);
          const into = p.level === 'product' ? r.productImages : p.level === 'variation' ? r.variationImages : r.images;
          for (const u of list) {
            const url = imageAddress(u, this.o.imageBaseUrl, row.line, this.#c);
            if (url !== null) into.push(url);
          }
          continue;
        }
      }
      const opt = ROLE_OPTION.exec(p.to);
      if (opt !== null) {
        (opt[1] === 'name' ? optionNames : optionValues).set(opt[2]!, v);
        continue;
      }
      if (p.spec?.currency !== undefined) {
        const money = p.spec.currency === '*' ? moneyParts(v) : { amount: v, currency: p.spec.currency.toUpperCase() };
        if (money !== null) offers.push({ plan: p, ...money });
        else this.summary.warn('price_without_currency', `line ${row.line}: ${p.column} "${v.slice(0, 40)}" (dropped)`);
        continue;
      }
      const mapped =
        p.spec?.map === undefined ? v : (Object.entries(p.spec.map).find(([k]) => k.toLowerCase() === v.toLowerCase())?.[1] ?? v);
      const out = convertValue(p.to, mapped, p.column, p.spec?.scale, this.#c);
      if ('error' in out) return { refuse: out.error, sku: null };
      this.#set(r, p.to, out.value, p.level, p.column);
      for (const [f, val] of Object.entries(p.spec?.set ?? {})) this.#set(r, f, val, p.level, p.column);
    }
    const refused = this.#pickOffers(r, offers);
    if (refused !== null) return { refuse: refused, sku: null };
    const error = this.#sale(r, sale);
    if (error !== null) return { refuse: error, sku: null };
    for (const [n, value] of optionValues) {
      if (!this.isNoOption(value)) r.options.push([optionNames.get(n) ?? `#${n}`, value]);
    }
    for (const [n, name] of optionNames) r.optionNames[n] = name;
    const sku = r.variationFields.sku ?? r.fields.sku ?? r.productFields.sku;
    r.sku = typeof sku === 'string' ? sku : sku === undefined ? null : String(sku);
    r.aliases = aliases.map((name) => ({ name, options: [] }));
    if (children !== '') r.aliases.push(...parseChildren(children));
    if (continues && this.#above !== null) {
      r.continues = true;
      r.ref = this.#above.ref;
      return { row: r };
    }
    if (parent !== '' && parent !== r.sku) {
      r.child = true;
      r.needsParent = true;
      r.ref = parent;
    } else if (key !== '' && key !== r.sku) {
      r.child = true;
      r.ref = key;
    } else if (r.sku !== null) {
      r.ref = r.sku;
    } else {
      return { refuse: 'the row has no sku', sku: null };
    }
    this.#above = { ref: r.ref, child: r.child };
    return { row: r };
  }

  #set(r: MappedRow, field: string, value: unknown, level: Level, column: string): void {
    const into = level === 'product' ? r.productFields : level === 'variation' ? r.variationFields : r.fields;
    // Several columns may map to one field (Odoo's description and description_sale): the first value wins.
    if (into[field] === undefined) into[field] = value;
    else if (into[field] !== value) this.summary.warn('column_not_used', `${column}: ${field} is already set by an earlier column`);
  }

  /**
   * Of the prices a row gives per currency, the one in the `currency` option's currency, else
   * the first (per field). None in that currency: a warning, the field left out (an existing
   * product keeps its price). Returns the refusal of a picked value that convertValue refuses.
   */
  #pickOffers(r: MappedRow, offers: Offer[]): string | null {
    const byField = new Map<string, Offer[]>();
    for (const o of offers) {
      const k = `${o.plan.level}:${o.plan.to}`;
      (byField.get(k) ?? byField.set(k, []).get(k)!).push(o);
    }
    const want = this.o.currency?.toUpperCase();
    for (const list of byField.values()) {
      const chosen = want === undefined ? list[0]! : list.find((o) => o.currency === want);
      if (chosen === undefined) {
        const { to, column } = list[0]!.plan;
        const offered = [...new Set(list.map((o) => o.currency))].join(', ');
        this.summary.warn(
          'price_currency_missing',
          `line ${r.line}: ${column} in ${offered}, none in ${want} (option currency): ${to} left out`,
        );
        continue;
      }
      const { to, level, column, spec } = chosen.plan;
      const out = convertValue(to, chosen.amount, column, spec?.scale, this.#c);
      if ('error' in out) return out.error;
      this.#set(r, to, out.value, level, column);
    }
    return null;
  }

  /** A sale price as the product's discount (a percentage 0-99), with its dates. */
  #sale(r: MappedRow, sale: { price?: string; from?: string; to?: string; compareAt?: string }): string | null {
    const into = r.variationFields.price !== undefined ? r.variationFields : r.fields;
    const price = typeof into.price === 'number' ? into.price : null;
    let regular = price;
    let selling: number | null = null;
    if (sale.compareAt !== undefined) {
      // Shopify: the price is what the customer pays, "compare at" what it was.
      regular = decimal(sale.compareAt);
      selling = price;
      if (regular === null || selling === null || regular <= selling) return null;
      into.price = regular;
    } else if (sale.price !== undefined) {
      selling = decimal(sale.price.replace(/\s*[A-Z]{3}$/, ''));
    }
    if (selling === null || regular === null || regular <= 0) return null;
    const pct = discountOf(regular, selling);
    if (pct === null || pct === 'outside') {
      this.summary.warn('sale_price_ignored', `line ${r.line}: sale ${selling} against ${regular}`);
      return null;
    }
    into.discount = pct;
    this.summary.converted('sale_price_to_discount');
    for (const [when, field] of [
      [sale.from, 'discount_from'],
      [sale.to, 'discount_to'],
    ] as const) {
      if (when === undefined) continue;
      const t = timestamp(when);
      if (t === null) this.summary.warn('date_unreadable', `line ${r.line}: sale date "${when.slice(0, 40)}" (dropped)`);
      // An end date without a time: the sale lasts that whole day.
      else into[field] = field === 'discount_to' && !/\d:\d/.test(when) ? saleEnd(t.slice(0, 10)) : t;
    }
    return null;
  }
}

/** "k=v,k=v" pairs (Magento's additional_attributes, configurable_variations). */
function pairs(text: string, sep: string): [string, string][] {
  return text.split(sep).flatMap((p) => {
    const i = p.indexOf('=');
    return i <= 0 ? [] : [[p.slice(0, i).trim(), p.slice(i + 1).trim()] as [string, string]];
  });
}

/** Magento's configurable_variations: "sku=X,color=Blue,size=S|sku=Y,...". */
function parseChildren(text: string): { name: string; options: [string, string][] }[] {
  return text.split('|').flatMap((part) => {
    const kv = pairs(part, ',');
    const sku = kv.find(([k]) => k === 'sku')?.[1];
    return sku === undefined ? [] : [{ name: sku, options: kv.filter(([k]) => k !== 'sku') }];
  });
}
