// Shapes of connector runs and summaries, shared by the CLI, the admin API and the service.
import { Type, type Static } from 'typebox';

export const RunOutcome = Type.Union([Type.Literal('running'), Type.Literal('succeeded'), Type.Literal('failed')]);

export const ConnectorRun = Type.Object({
  id: Type.Integer(),
  connector: Type.String(),
  /** schedule (a cron tick), manual (run now: admin), cli, webhook (a pushed request). */
  trigger: Type.String(),
  scheduled_for: Type.Union([Type.String(), Type.Null()]),
  attempt: Type.Integer({ minimum: 1 }),
  started_at: Type.String(),
  finished_at: Type.Union([Type.String(), Type.Null()]),
  duration_ms: Type.Union([Type.Integer(), Type.Null()]),
  outcome: RunOutcome,
  counts: Type.Record(Type.String(), Type.Number()),
  error: Type.Union([Type.String(), Type.Null()]),
  feed_pks: Type.Array(Type.String()),
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
  /** Paths of its push receivers (POST). */
  receivers: Type.Array(Type.String()),
  last_runs: Type.Array(ConnectorRun),
});
export type ConnectorSummary = Static<typeof ConnectorSummary>;

export type RunTrigger = 'schedule' | 'manual' | 'cli' | 'webhook';

export interface RunNowResult {
  /** false: a run of this connector is already queued or running, nothing new was queued. */
  queued: boolean;
  job_id: string | null;
}
