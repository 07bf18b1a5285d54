// Shapes of connector runs and summaries, shared by the CLI, the admin API and the service.
import { Type, type Static } from 'typebox';

/**
 * succeeded; partial (it ended, but some items or files were refused: a `*_error`, `*_failed`,
 * `*_invalid` or `*_refused` count above 0); failed (`error` says why); throttled (the remote
 * API's Retry-After stopped it; `throttled_until` says until when); skipped (not run, `error`
 * says why: its shop does not exist yet).
 */
export const RunOutcome = Type.Union([
  Type.Literal('running'),
  Type.Literal('succeeded'),
  Type.Literal('partial'),
  Type.Literal('failed'),
  Type.Literal('throttled'),
  Type.Literal('skipped'),
]);
export type RunOutcome = Static<typeof RunOutcome>;

export const ConnectorRun = Type.Object({
  id: Type.Integer(),
  connector: Type.String(),
  /** schedule (a cron tick), manual (run now: admin), file (a file dropped in a watched folder), cli, webhook (a pushed request). */
  trigger: Type.String(),
  scheduled_for: Type.Union([Type.String(), Type.Null()]),
  attempt: Type.Integer({ minimum: 1 }),
  started_at: Type.String(),
  finished_at: Type.Union([Type.String(), Type.Null()]),
  duration_ms: Type.Union([Type.Integer(), Type.Null()]),
  outcome: RunOutcome,
  counts: Type.Record(Type.String(), Type.Number()),
  /** Why it failed, or was skipped or throttled. */
  error: Type.Union([Type.String(), Type.Null()]),
  feed_pks: Type.Array(Type.String()),
  /** Throttled runs: no run of the connector starts before this time. */
  throttled_until: Type.Union([Type.String(), Type.Null()]),
});
export type ConnectorRun = Static<typeof ConnectorRun>;

export const ConnectorSummary = Type.Object({
  name: Type.String(),
  type: Type.String(),
  shop_pk: Type.Union([Type.Integer(), Type.Null()]),
  schedule: Type.Union([Type.String(), Type.Null()]),
  /** In effect: the admin's override when set, else the file's. */
  enabled: Type.Boolean(),
  enabled_in_file: Type.Boolean(),
  /** The entry's options as read (defaults applied, folders absolute); secrets are named by env var, never held. */
  options: Type.Record(Type.String(), Type.Unknown()),
  /** Folders watched: a file dropped in one starts a run (catalog-file's inbox). */
  watches: Type.Array(Type.String()),
  /** Paths of its push receivers (POST). */
  receivers: Type.Array(Type.String()),
  /** Set while the remote API's Retry-After holds: no run starts before this time. */
  throttled_until: Type.Union([Type.String(), Type.Null()]),
  last_runs: Type.Array(ConnectorRun),
});
export type ConnectorSummary = Static<typeof ConnectorSummary>;

export type RunTrigger = 'schedule' | 'manual' | 'file' | 'cli' | 'webhook';

export interface RunNowResult {
  /** false: a run of this connector is already queued or running, or it is throttled; nothing new was queued. */
  queued: boolean;
  job_id: string | null;
  /** Set when not queued because the remote API asked to wait until then. */
  throttled_until?: string;
}
