// Shapes of the admin API (/admin/api/...), shared by its routes and the admin service.
import { Type, type Static } from 'typebox';

export const JobStateT = Type.Union([
  Type.Literal('created'),
  Type.Literal('retry'),
  Type.Literal('active'),
  Type.Literal('completed'),
  Type.Literal('cancelled'),
  Type.Literal('failed'),
]);
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const QueueOut = Type.Object({
  name: Type.String(),
  dead: Type.Boolean({ description: 'A dead-letter queue: jobs that failed for good.' }),
  queued: Type.Integer(),
  deferred: Type.Integer(),
  active: Type.Integer(),
  failed: Type.Integer(),
  total: Type.Integer(),
  oldest_age_seconds: Type.Number(),
});
export type QueueOut = Static<typeof QueueOut>;

export const JobOut = Type.Object({
  id: Type.String(),
  queue: Type.String(),
  state: JobStateT,
  data: Type.Unknown(),
  attempts: Type.Integer({ description: 'Attempts started so far.' }),
  retry_limit: Type.Integer(),
  created_at: Type.String(),
  started_at: Nullable(Type.String()),
  completed_at: Nullable(Type.String()),
  error: Nullable(Type.String({ description: 'The last failure message.' })),
  output: Type.Unknown(),
  source_queue: Nullable(Type.String()),
  source_id: Nullable(Type.String()),
});
export type JobOut = Static<typeof JobOut>;

export const JobListQuery = Type.Object({
  state: Type.Optional(JobStateT),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
  q: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: 'A job id, or text anywhere in the job data (case-insensitive).' }),
  ),
  order: Type.Optional(
    Type.Union([Type.Literal('newest'), Type.Literal('oldest')], { description: 'By creation time; default newest first.' }),
  ),
});
export type JobListQuery = Static<typeof JobListQuery>;

export const JobParams = Type.Object({
  queue: Type.String({ minLength: 1, maxLength: 200 }),
  id: Type.String({ minLength: 1, maxLength: 100 }),
});
export const QueueParams = Type.Object({ queue: Type.String({ minLength: 1, maxLength: 200 }) });

export const LogQueryT = Type.Object({
  /** Minimum level; empty means any. */
  level: Type.Optional(
    Type.Union([
      Type.Literal(''),
      Type.Literal('trace'),
      Type.Literal('debug'),
      Type.Literal('info'),
      Type.Literal('warn'),
      Type.Literal('error'),
      Type.Literal('fatal'),
    ]),
  ),
  feed: Type.Optional(Type.String({ maxLength: 200 })),
  run: Type.Optional(Type.String({ maxLength: 200 })),
  request: Type.Optional(Type.String({ maxLength: 200 })),
  job: Type.Optional(Type.String({ maxLength: 200 })),
  q: Type.Optional(Type.String({ maxLength: 200 })),
  after: Type.Optional(Type.Integer({ minimum: 0, description: 'Only lines after this seq (live tail).' })),
  before: Type.Optional(Type.Integer({ minimum: 1, description: 'Only lines before this seq (the next, older page).' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 2000, default: 200 })),
});
export type LogQueryT = Static<typeof LogQueryT>;

export const LogLineOut = Type.Object({
  seq: Type.Integer(),
  time: Type.String(),
  level: Type.String(),
  msg: Type.String(),
  fields: Type.Record(Type.String(), Type.Unknown()),
});

export const LogsOut = Type.Object({
  lines: Type.Array(LogLineOut),
  last_seq: Type.Integer({ description: 'Pass as `after` to get only newer lines.' }),
  capacity: Type.Integer({ description: 'Lines kept in the database, across processes (the oldest go first).' }),
  dropped: Type.Integer({ description: 'Lines this process could not store (the database was away or the queue was full).' }),
});
export type LogsOut = Static<typeof LogsOut>;

export const SeriesPoint = Type.Object({ at: Type.String(), value: Type.Number() });
export type SeriesPoint = Static<typeof SeriesPoint>;

export const OverviewOut = Type.Object({
  generated_at: Type.String(),
  shops: Type.Integer(),
  active_keys: Type.Integer(),
  queues: Type.Array(QueueOut),
  jobs: Type.Object({ waiting: Type.Integer(), active: Type.Integer(), dead: Type.Integer(), oldest_age_seconds: Type.Number() }),
  /** Feeds kept, by state: queued, processing, done, partial (done with item errors), failed. */
  feeds: Type.Object({ by_state: Type.Record(Type.String(), Type.Integer()) }),
  connectors: Nullable(
    Type.Object({
      total: Type.Integer(),
      enabled: Type.Integer(),
      /** Connectors whose last run failed, ended partial (items or files refused) or was skipped (no shop yet). */
      failing: Type.Integer(),
      partial: Type.Integer(),
      skipped: Type.Integer(),
    }),
  ),
  /** Webhook deliveries attempted in the last `hours` whose last attempt failed (retried or given up) or was refused. */
  webhooks: Nullable(Type.Object({ failing: Type.Integer(), refused: Type.Integer(), hours: Type.Integer() })),
  charts: Type.Object({
    step_minutes: Type.Integer(),
    queue_depth: Type.Array(SeriesPoint),
    /** error and fatal log lines of every process. */
    errors_per_minute: Type.Array(SeriesPoint),
    /** Feeds finished, their items processed and failed, by finish time. */
    feeds_per_minute: Type.Array(SeriesPoint),
    items_per_minute: Type.Array(SeriesPoint),
    item_errors_per_minute: Type.Array(SeriesPoint),
  }),
});
export type OverviewOut = Static<typeof OverviewOut>;

export const OverviewQuery = Type.Object({
  hours: Type.Optional(Type.Integer({ minimum: 1, maximum: 48, default: 3 })),
});

export const KeyCreateIn = Type.Object({
  shop_pk: Type.Integer({ minimum: 1 }),
  label: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 100 }), Type.Null()])),
});
export const KeyParams = Type.Object({ prefix: Type.String({ minLength: 1, maxLength: 40 }) });
export const KeyListQuery = Type.Object({ shop: Type.Optional(Type.Integer({ minimum: 1 })) });

export const ActionOut = Type.Object({ ok: Type.Boolean(), detail: Type.String() });

/**
 * How a feed ended, as the dashboard, the admin API and the metrics say it: the feed's state,
 * except that a done feed with failed items is `partial`. The marketplace API keeps its
 * documented state (done) and status (Complete), which existing clients read.
 */
export const FeedOutcome = Type.Union(
  [Type.Literal('queued'), Type.Literal('processing'), Type.Literal('done'), Type.Literal('partial'), Type.Literal('failed')],
  {
    description: 'The state, except a done feed with failed items: partial',
  },
);
export type FeedOutcome = Static<typeof FeedOutcome>;

export const feedOutcome = (f: { state: string; counts: { failed: number } }): FeedOutcome =>
  (f.state === 'done' && f.counts.failed > 0 ? 'partial' : f.state) as FeedOutcome;
