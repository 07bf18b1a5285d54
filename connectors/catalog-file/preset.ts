// A preset: how one shop system's export maps to waybill's products, as data (presets/<name>.json,
// validated here). The mapping engine (row-map.ts, group.ts) reads it; no code knows a preset
// by name. A connector's own options (`columns`, `defaults`, `image_base_url`, `currency`,
// `locale`, `scope`) override the preset's.
import fs from 'node:fs';
import path from 'node:path';
import { Type, type Static } from 'typebox';
import { validate } from '../sdk/index.ts';

/**
 * What a source column becomes. `to`: a Product field (`name`), one forced to a level
 * (`product.brand`, `variation.price`), or a role:
 * `$key` rows sharing it are one product (Shopify Handle, g:item_group_id, Akeneo parent);
 * `$parent` the row is a variation of the product with this sku (or alias, `id:12`);
 * `$alias` another name of this row's product (with `prefix`: WooCommerce `id:` + ID);
 * `$children` the variations this row lists (`sku=X,color=Blue|sku=Y,...`, Magento);
 * `$skip` a non-empty value skips the row (with `reason`: Magento store-view rows);
 * `$continues` an empty value makes the row a continuation of the row above (Odoo);
 * `$image` image addresses; `$sale_price`, `$sale_from`, `$sale_to`, `$compare_at_price`;
 * `$sale_dates` both sale dates as an ISO 8601 interval `start/end` (Google Merchant);
 * `$option_name:N` / `$option_value:N` variation options; `$pairs` `k=v,k=v` attributes;
 * `$drop` read and dropped.
 */
export const ColumnSpec = Type.Union([
  Type.String({ minLength: 1 }),
  Type.Object(
    {
      to: Type.String({ minLength: 1 }),
      /** A list: the value is split on this separator (images: ", " WooCommerce, "," Magento). */
      split: Type.Optional(Type.String({ minLength: 1 })),
      /** Multiplied into the field's unit (grams -> kg: 0.001). */
      scale: Type.Optional(Type.Number()),
      /** Fields set beside a non-empty value (`{"weight_unit": "lb"}`). */
      set: Type.Optional(Type.Record(Type.String(), Type.String())),
      /** Source values -> field values, case-insensitive (`{"instock": "in_stock"}`); others are left as they are. */
      map: Type.Optional(Type.Record(Type.String(), Type.String())),
      /**
       * The column is one of the source's prices per currency (Akeneo): a code (`"EUR"`) says
       * the values' currency, `"*"` that each value names its own (`89.90 EUR`, several per
       * row); a column named with `{currency}` (`price-{currency}`) has the name's. The
       * `currency` option picks the price in that currency (none: a warning, the field left
       * out); without it the first wins.
       */
      currency: Type.Optional(Type.String({ minLength: 1 })),
      /** `$alias`: put before the value. `$skip`: why such rows are skipped. */
      prefix: Type.Optional(Type.String()),
      reason: Type.Optional(Type.String()),
    },
    { additionalProperties: false },
  ),
]);
export type ColumnSpec = Static<typeof ColumnSpec>;

export const Preset = Type.Object(
  {
    name: Type.String(),
    /** The documentation this mapping follows. */
    source: Type.Optional(Type.String()),
    /** Source column (any case; `{currency}` in a name matches any currency code) -> what it becomes. */
    columns: Type.Record(Type.String(), ColumnSpec),
    /** Columns the map does not name: dropped (listed once in the report) or kept as attributes. */
    unmapped: Type.Union([Type.Literal('drop'), Type.Literal('attribute')], { default: 'drop' }),
    /**
     * Option names (any case) -> field, over the SDK's OPTION_FIELDS (color, colour, size...:
     * the table the API pulls use too); other options become attributes named by the option.
     */
    options: Type.Record(Type.String(), Type.String(), { default: {} }),
    /** Option values that mean "no option" (Shopify's "Default Title"). */
    no_option_values: Type.Array(Type.String(), { default: [] }),
    /** `$parent` rows need their parent row in the file (true) or make the product themselves (false). */
    parent_row_required: Type.Boolean({ default: true }),
    /**
     * Rows of one key with no parent row and a single variation without options are a simple
     * product of that variation's sku (Shopify's "Default Title"); false: a variation of the
     * keyed product all the same (an Akeneo model's variant, alone in a file of changes).
     */
    single_variation_product: Type.Boolean({ default: true }),
    /** Fields a new product lacking them takes (existing products keep theirs). */
    defaults: Type.Record(Type.String(), Type.Unknown(), { default: {} }),
    /** Documents: the path of the items (`rss.channel.item`, `_embedded.items`). */
    item_path: Type.Optional(Type.String()),
    /** The format when the file's extension does not say (csv, xlsx, xml, json). */
    format: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
export type Preset = Static<typeof Preset>;

export const PRESET_NAMES = ['woocommerce', 'shopify', 'magento2', 'akeneo', 'odoo', 'google-merchant'] as const;
export type PresetName = (typeof PRESET_NAMES)[number];

const cache = new Map<string, Preset>();

/** The preset file of this name, validated (a broken preset file is a programming error). */
export function loadPreset(name: PresetName): Preset {
  let p = cache.get(name);
  if (p === undefined) {
    const raw = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, 'presets', `${name}.json`), 'utf8')) as Preset;
    // Defaults are filled into raw.
    const first = validate(Preset, raw)[0];
    if (first !== undefined) throw new Error(`preset ${name} is invalid at ${first.instancePath}: ${first.message ?? '?'}`);
    p = raw;
    cache.set(name, p);
  }
  return p;
}

/** The user's options that override a preset's. */
export interface PresetOverrides {
  columns?: Record<string, string>;
  defaults?: Record<string, unknown>;
  item_path?: string;
  locale?: string;
  scope?: string;
}

/**
 * The preset with the connector's own `columns`, `defaults` and `item_path` over it; `{locale}`
 * and `{scope}` in its column names (Akeneo's `name-{locale}`) become the options' (default
 * en_US, ecommerce).
 */
export function effectivePreset(name: PresetName, o: PresetOverrides): Preset {
  const p = loadPreset(name);
  const fill = (s: string): string => s.replaceAll('{locale}', o.locale ?? 'en_US').replaceAll('{scope}', o.scope ?? 'ecommerce');
  const columns = Object.fromEntries(Object.entries(p.columns).map(([k, v]) => [fill(k), v]));
  return { ...p, columns: { ...columns, ...o.columns }, defaults: { ...p.defaults, ...o.defaults }, item_path: o.item_path ?? p.item_path };
}
