import type { ColumnType, Generated } from 'kysely';

type Stamp = ColumnType<Date, Date | undefined, Date | undefined>;
type Json = ColumnType<Record<string, unknown>, string, string>;

/** Products, variations and images of shops' catalogs. */
export interface CatalogTables {
  products: {
    pk: Generated<number>;
    shop_pk: number;
    sku: string;
    name: string;
    price: ColumnType<number, number | string, number | string>;
    stock: number;
    /** Every other Product field as sent (validated). */
    attrs: Json;
    created_at: Stamp;
    updated_at: Stamp;
    deleted_at: Date | null;
  };
  /** Live (not deleted) products of a shop: the sum of its slots (migration 20261124T0030). */
  product_counts: {
    shop_pk: number;
    slot: number;
    live: ColumnType<number, number | string, number | string>;
  };
  product_images: {
    pk: Generated<number>;
    product_pk: number;
    url: string;
    /** 0-based order of the product's images. */
    position: number;
    created_at: Stamp;
  };
  variations: {
    pk: Generated<number>;
    product_pk: number;
    sku: string;
    /** null: the product's. */
    price: ColumnType<number | null, number | string | null, number | string | null>;
    stock: number | null;
    attrs: Json;
    created_at: Stamp;
    updated_at: Stamp;
    deleted_at: Date | null;
  };
  variation_images: {
    variation_pk: number;
    image_pk: number;
    position: number;
  };
}
