import type { ColumnType, Generated } from 'kysely';

/** Log lines of every process, newest kept (src/logs/log-sink.ts writes them). */
export interface LogTables {
  log_lines: {
    id: Generated<number>;
    time: ColumnType<Date, Date | string, never>;
    /** pino's numeric level (10 trace, 20 debug, 30 info, 40 warn, 50 error, 60 fatal). */
    level: number;
    msg: string;
    pid: number | null;
    hostname: string | null;
    req_id: string | null;
    feed: string | null;
    run: string | null;
    job: string | null;
    /** The rest of the line as logged (secrets already redacted). */
    fields: ColumnType<Record<string, unknown>, string, never>;
  };
}
