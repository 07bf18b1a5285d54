import type { ColumnType, Generated } from 'kysely';

type Json<T> = ColumnType<T, string | undefined, string>;
type CreatedAt = ColumnType<Date, Date | undefined, never>;

/** Connector runs, state, delta hashes, processed files and receiver replies. */
export interface ConnectorTables {
  /** One row per run of a connector (scheduled tick, run now, CLI, or a pushed webhook). */
  connector_runs: {
    id: Generated<number>;
    connector: string;
    /** schedule | manual | file | cli | webhook */
    trigger: string;
    /** The cron tick this run answers (schedule runs only). */
    scheduled_for: Date | null;
    job_id: string | null;
    /** 1 on the first attempt of a job. */
    attempt: number;
    started_at: CreatedAt;
    finished_at: Date | null;
    /** running | succeeded | partial | failed | throttled | skipped */
    outcome: string;
    counts: Json<Record<string, number>>;
    error: string | null;
    /** Feed ids the run created, in order. */
    feed_pks: Json<string[]>;
    /** Throttled runs: no run of the connector starts before this (the remote API's Retry-After). */
    throttled_until: ColumnType<Date | null, Date | null | undefined, Date | null>;
  };
  /** Small persistent JSON per connector and key (cursors). */
  connector_state: {
    connector: string;
    key: string;
    value: Json<unknown>;
    updated_at: ColumnType<Date, Date | undefined, Date>;
  };
  /** Persisted overrides of the config file (the admin's enable/disable). */
  connector_settings: {
    connector: string;
    enabled: boolean;
    updated_at: ColumnType<Date, Date | undefined, Date>;
  };
  /** sha256 of the last normalized content sent for each (shop, sku): delta detection. */
  connector_product_hashes: {
    shop_pk: number;
    sku: string;
    hash: string;
    updated_at: ColumnType<Date, Date | undefined, Date>;
  };
  /** Files a connector finished, by content hash: a byte-identical file again is skipped. */
  connector_files: {
    connector: string;
    sha256: string;
    file_name: string;
    run_id: number | null;
    /** When it was (last) processed. */
    done_at: ColumnType<Date, Date | undefined, Date>;
    /** The feeds the file was sent as. */
    feed_pks: ColumnType<string[], string[] | undefined, string[]>;
  };
  /** Replies of pushed requests by their delivery id (webhook-id): a duplicate gets the first reply. */
  connector_receipts: {
    connector: string;
    key: string;
    /** null while the first delivery is being handled. */
    status: number | null;
    headers: Json<Record<string, string> | null>;
    body: Json<unknown>;
    created_at: CreatedAt;
  };
}
