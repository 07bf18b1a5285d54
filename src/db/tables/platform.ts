import type { ColumnType } from 'kysely';

/** Cross-cutting tables: idempotent replies, dashboard sessions. */
export interface PlatformTables {
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
  admin_sessions: {
    /** sha256 (hex) of the random id the session cookie carries. */
    id_hash: string;
    created_at: ColumnType<Date, Date | undefined, never>;
    last_seen_at: ColumnType<Date, Date | undefined, Date>;
    /** created_at plus the absolute lifetime. */
    expires_at: ColumnType<Date, Date, Date>;
  };
}
