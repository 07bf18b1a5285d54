import type { ColumnType } from 'kysely';

/** Replies kept for Idempotency-Key. */
export interface IdempotencyTables {
  idempotency_keys: {
    /** The shop (or 0 for admin) that sent the key, so keys of two shops never collide. */
    shop_pk: number;
    key: string;
    method: string;
    path: string;
    /** sha256 of the request body, hex: the same key with another body is refused. */
    body_hash: string;
    status: number | null;
    headers: ColumnType<Record<string, string> | null, string | null, string | null>;
    body: ColumnType<unknown, string | null, string | null>;
    created_at: ColumnType<Date, Date | undefined, never>;
  };
}
