import type { ColumnType, Generated } from 'kysely';

type CreatedAt = ColumnType<Date, Date | undefined, never>;

/** Shops and their API keys. */
export interface ShopTables {
  shops: {
    pk: Generated<number>;
    name: string;
    webhook_url: string | null;
    /**
     * Standard Webhooks signing secret ("whsec_" + base64), generated with the shop, stored
     * sealed (src/shops/secret-box.ts: AES-256-GCM under a key kept outside the database).
     */
    webhook_secret: string;
    /** The secret before the last rotation, sealed: it signs beside the new one until `_until`. */
    webhook_secret_previous: string | null;
    webhook_secret_previous_until: Date | null;
    /** Its share of the feed workers (src/shops/shop-tiers.ts); default 'standard'. */
    tier: ColumnType<string, string | undefined, string>;
    created_at: CreatedAt;
  };
  api_keys: {
    id: Generated<number>;
    shop_pk: number;
    /** First characters of the key: shown in lists and history, never enough to use it. */
    prefix: string;
    /** sha256 of the whole key, hex. The key itself is shown once and never stored. */
    hash: string;
    label: string | null;
    created_at: CreatedAt;
    revoked_at: Date | null;
    last_used_at: Date | null;
  };
}
