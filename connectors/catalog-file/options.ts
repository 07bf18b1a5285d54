// The options of a catalog-file entry (validated at start-up, defaults applied).
import { Type, type Static } from 'typebox';
import { PRESET_NAMES } from './preset.ts';

/** A file or folder name inside the inbox: no hidden names (nor `.` or `..`), no slashes, no control characters. */
const SEGMENT = '[\\p{L}\\p{N}][\\p{L}\\p{N} ._()+,@=-]{0,199}';

export const CatalogFileOptions = Type.Object(
  {
    /** The folder the ERP/PIM drops files into (relative: from the connectors file's folder, created when missing). */
    inbox: Type.String({ minLength: 1, 'x-folder': true }),
    /** csv | json | xml (| xlsx with a preset). Unset: each file's extension says (a preset is then needed for anything but csv). */
    format: Type.Optional(Type.Union([Type.Literal('csv'), Type.Literal('json'), Type.Literal('xml'), Type.Literal('xlsx')])),
    /** A shop system's export, read as that system writes it (presets/<name>.json): woocommerce, shopify, magento2, akeneo, odoo, google-merchant. */
    preset: Type.Optional(Type.Union(PRESET_NAMES.map((n) => Type.Literal(n)))),
    /** With a preset: fields a new product lacking them takes, over the preset's (e.g. {"stock": 0}). */
    defaults: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    /** With a preset: the address relative image paths are joined to (Magento's /m/b/mb01.jpg). */
    image_base_url: Type.Optional(Type.String({ pattern: '^https?://' })),
    /** With a preset: the currency of the file's prices; a price in another one refuses its row. */
    currency: Type.Optional(Type.String({ pattern: '^[A-Za-z]{3}$' })),
    /** Documents (XML, JSON) with a preset: the path of the items, over the preset's. */
    item_path: Type.Optional(Type.String({ minLength: 1 })),
    /**
     * With the akeneo preset: Akeneo's product model export, a path inside the inbox (e.g.
     * `models/product_models.csv`), read with each product file and never imported itself: variant
     * products become variations of their root model's product, named and described by it.
     */
    product_models: Type.Optional(Type.String({ pattern: `^${SEGMENT}(/${SEGMENT})*$`, maxLength: 1000 })),
    /** Akeneo values: the locale and channel read (default en_US, ecommerce). */
    locale: Type.Optional(Type.String({ minLength: 1 })),
    scope: Type.Optional(Type.String({ minLength: 1 })),
    /** Header (or XML element) name -> Product field, e.g. {"price-EUR": "price", "Artikelnummer": "sku"}. */
    columns: Type.Record(Type.String(), Type.String({ minLength: 1 }), { default: {} }),
    /** A file is picked up once its size and mtime stay unchanged this long, ms. */
    settle_ms: Type.Integer({ minimum: 0, maximum: 600_000, default: 2_000 }),
    /** Largest file accepted, bytes (default 1 GiB); larger ones go to .error/ unread. */
    max_bytes: Type.Integer({ minimum: 1, default: 1024 ** 3 }),
    /** JSON and XML are read whole: largest such file, bytes (default 200 MiB). */
    max_document_bytes: Type.Integer({ minimum: 1, default: 200 * 1024 ** 2 }),
  },
  { additionalProperties: false },
);
export type CatalogFileOptions = Static<typeof CatalogFileOptions>;
