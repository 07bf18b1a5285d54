import type { ColumnType, Generated } from 'kysely';

type Timestamp = ColumnType<Date, Date | undefined, Date>;

/** Carrier tracking (migration 20261121T1305). Both tables hang off `shipments`. */
export interface TrackingTables {
  /** One row per tracked shipment, created at its first check. */
  tracking_shipments: {
    shipment_id: number;
    /** The connector that last checked it (its name in the connectors file). */
    connector: string;
    /** Normalized status (TRACKING_STATUSES); `unknown` before the carrier said anything. */
    status: Generated<string>;
    /** The carrier's own latest code (DHL statusCode, AfterShip subtag...). */
    carrier_status: string | null;
    /** true: no more polling (returned, lost, delivered past the follow-up window). */
    final: Generated<boolean>;
    /** When the carrier first said delivered (returns are followed for a while after it). */
    delivered_at: Date | null;
    /** The last order action tried for it (applied or refused): never tried twice in a row. */
    last_action: string | null;
    checks: Generated<number>;
    last_checked_at: Date | null;
    /** The last failed check (a 4xx, or retries exhausted), kept until a check succeeds. */
    last_error: string | null;
    last_error_at: Date | null;
    error_count: Generated<number>;
    updated_at: Timestamp;
  };
  tracking_events: {
    id: Generated<number>;
    shipment_id: number;
    occurred_at: Date;
    status: string;
    carrier_code: string | null;
    carrier_text: string | null;
    location: string | null;
    /** Set on events waybill adds itself, e.g. an order action the state table refused. */
    warning: string | null;
    /** `connector:<name>`. */
    source: string;
    /** sha256 of the event's content: the same event again is not stored twice. */
    dedupe_key: string;
    recorded_at: Timestamp;
  };
}
