import type { ColumnType } from 'kysely';

/** Dashboard sessions, kept server-side so a logout reaches every replica. */
export interface AdminSessionTables {
  admin_sessions: {
    /** sha256 (hex) of the random id the session cookie carries. */
    id_hash: string;
    created_at: ColumnType<Date, Date | undefined, never>;
    last_seen_at: ColumnType<Date, Date | undefined, Date>;
    /** created_at plus the absolute lifetime. */
    expires_at: ColumnType<Date, Date, Date>;
  };
}
