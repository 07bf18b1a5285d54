import type { ColumnType } from 'kysely';

type Json<T> = ColumnType<T, string, string>;

/** Feeds: one per catalog write, processed asynchronously. */
export interface FeedTables {
  feeds: {
    pk: string;
    shop_pk: number;
    type: string;
    state: ColumnType<string, string | undefined, string>;
    /** 'key:<prefix>' or 'connector:<name>'. */
    source: string;
    product_pk: number | null;
    variation_pk: number | null;
    base_url: string;
    total: number;
    processed: ColumnType<number, number | undefined, number>;
    succeeded: ColumnType<number, number | undefined, number>;
    failed: ColumnType<number, number | undefined, number>;
    warnings: ColumnType<number, number | undefined, number>;
    criticals: ColumnType<{ code: string; message: string }[], string | undefined, string>;
    created_at: ColumnType<Date, Date | undefined, never>;
    started_at: Date | null;
    finished_at: Date | null;
    /** While processing: renewed by its worker's heartbeat; past it, the worker is taken as dead. */
    leased_until: Date | null;
    /** The process holding the lease, "<host>/<pid>/<start time>" (src/system/process-owner.ts). */
    owner: ColumnType<string | null, string | null | undefined, string | null>;
  };
  feed_payloads: {
    feed_pk: string;
    items: Json<Record<string, unknown>[]>;
    warnings: Json<{ index: number; pointer: string; message: string }[]>;
    skus: string[];
    /** Content hash of each item (by index) for a connector's delta detection; null: none kept. */
    hashes: ColumnType<(string | null)[] | null, never, never>;
  };
  feed_results: {
    feed_pk: string;
    offset: number;
    success: Json<Record<string, unknown>[]>;
    errors: Json<Record<string, unknown>[]>;
  };
}
