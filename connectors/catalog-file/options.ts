// The options of a catalog-file entry (validated at start-up, defaults applied).
import { Type, type Static } from 'typebox';

export const CatalogFileOptions = Type.Object({
  /** The folder the ERP/PIM drops files into (relative: from the connectors file's folder, created when missing). */
  inbox: Type.String({ minLength: 1, 'x-folder': true }),
  format: Type.Union([Type.Literal('csv'), Type.Literal('json'), Type.Literal('xml')]),
  /** Header (or XML element) name -> Product field, e.g. {"price-EUR": "price", "Artikelnummer": "sku"}. */
  columns: Type.Record(Type.String(), Type.String({ minLength: 1 }), { default: {} }),
  /** A file is picked up once its size and mtime stay unchanged this long, ms. */
  settle_ms: Type.Integer({ minimum: 0, maximum: 600_000, default: 2_000 }),
  /** Largest file accepted, bytes (default 1 GiB); larger ones go to .error/ unread. */
  max_bytes: Type.Integer({ minimum: 1, default: 1024 ** 3 }),
  /** JSON and XML are read whole: largest such file, bytes (default 200 MiB). */
  max_document_bytes: Type.Integer({ minimum: 1, default: 200 * 1024 ** 2 }),
}, { additionalProperties: false });
export type CatalogFileOptions = Static<typeof CatalogFileOptions>;
