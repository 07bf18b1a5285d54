// The pg-boss inspector: the admin API's and the metrics' view of the job queue (counts, single
// jobs, retry and cancel) as a port (QueueInspector, so services never import pg-boss) and its
// implementation over pg-boss: counts and single-job lookups by two read-only queries on
// pg-boss's job table (jobs of one state newest first, the oldest waiting job of each queue,
// which its API cannot filter), actions through its retry/cancel/redrive.
import type { PgBoss } from 'pg-boss';

/** pg-boss job states: waiting (created, retry), running (active), ended (completed, cancelled, failed). */
export type JobState = 'created' | 'retry' | 'active' | 'completed' | 'cancelled' | 'failed';
export const jobStates: JobState[] = ['created', 'retry', 'active', 'completed', 'cancelled', 'failed'];

export interface QueueSummary {
  name: string;
  /** A dead-letter queue (`<name>.dead`): jobs that failed for good, kept for inspection and retry. */
  dead: boolean;
  /** Waiting jobs (created or retry), deferred ones included. */
  queued: number;
  deferred: number;
  active: number;
  failed: number;
  total: number;
  /** Seconds since the oldest waiting job was created; 0 when none waits. */
  oldestAgeSeconds: number;
}

export interface JobSummary {
  id: string;
  queue: string;
  state: JobState;
  data: unknown;
  /** Attempts so far after the first (an active job on its first attempt has 0 or 1, per pg-boss). */
  retryCount: number;
  retryLimit: number;
  createdOn: string;
  startedOn: string | null;
  completedOn: string | null;
  /** What the last attempt returned or threw ({message, code} for failures). */
  output: unknown;
  /** For a dead-letter job: the queue and job it failed on. */
  sourceName: string | null;
  sourceId: string | null;
  /** For a dead-letter job: the retry count the failed job had reached. */
  sourceRetryCount: number | null;
}

export interface JobListOptions {
  state?: JobState;
  /** Default 50, at most 500. */
  limit?: number;
  /** A job id, or text anywhere in the job's data (case-insensitive). */
  search?: string;
  /** By creation time: newest first (default) or oldest first. */
  order?: 'newest' | 'oldest';
}

export interface QueueInspector {
  listQueues(): Promise<QueueSummary[]>;
  listJobs(queue: string, options?: JobListOptions): Promise<JobSummary[]>;
  getJob(queue: string, id: string): Promise<JobSummary | null>;
  /**
   * Runs a failed job again: a job of a dead-letter queue is moved back to the queue it failed on;
   * a failed job of a work queue is retried in place unless its dead-letter copy still waits
   * (then that copy is the one to retry). False when there was nothing to retry.
   */
  retryJob(queue: string, id: string): Promise<boolean>;
  /** The id of the waiting dead-letter copy of a failed job (the one to retry), or null. */
  deadCopyOf(queue: string, id: string): Promise<string | null>;
  /** Cancels a waiting (created or retry) job. False when it was not waiting. */
  cancelJob(queue: string, id: string): Promise<boolean>;
  /**
   * Jobs waiting in each queue at each step of the last `minutes`, rebuilt from the jobs' own
   * created/started times (so it spans restarts and every replica), oldest step first.
   */
  depthHistory(minutes: number, stepMinutes: number): Promise<DepthPoint[]>;
}

export interface DepthPoint {
  at: string;
  /** Waiting jobs per queue name at that moment (queues with none are left out). */
  queued: Record<string, number>;
}

const SCHEMA = 'pgboss'; // pg-boss's default schema; JobQueue does not change it.
const DEAD_SUFFIX = '.dead';

interface JobRow {
  id: string;
  name: string;
  state: JobState;
  data: unknown;
  retry_count: number;
  retry_limit: number;
  created_on: Date;
  started_on: Date | null;
  completed_on: Date | null;
  output: unknown;
  source_output: unknown;
  source_name: string | null;
  source_id: string | null;
  source_retry_count: number | null;
}

const JOB_COLUMNS =
  'id, name, state, data, retry_count, retry_limit, created_on, started_on, completed_on, output, source_output, source_name, source_id, source_retry_count';

const iso = (d: Date | string | null): string | null => (d === null ? null : new Date(d).toISOString());

const toSummary = (row: JobRow): JobSummary => ({
  id: row.id,
  queue: row.name,
  state: row.state,
  data: row.data,
  retryCount: Number(row.retry_count),
  retryLimit: Number(row.retry_limit),
  createdOn: iso(row.created_on)!,
  startedOn: iso(row.started_on),
  completedOn: iso(row.completed_on),
  // A dead-letter job keeps the failure of the job it copies in source_output.
  output: row.output ?? row.source_output ?? null,
  sourceName: row.source_name,
  sourceId: row.source_id,
  sourceRetryCount: row.source_retry_count === null ? null : Number(row.source_retry_count),
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export class PgBossInspector implements QueueInspector {
  readonly #boss: PgBoss;
  /** The queues this process may touch (the job map's and their dead-letter queues). */
  readonly #known: () => string[];

  constructor(boss: PgBoss, known: () => string[]) {
    this.#boss = boss;
    this.#known = known;
  }

  #sql<T>(text: string, values: unknown[]): Promise<T[]> {
    return this.#boss
      .getDb()
      .executeSql(text, values)
      .then((r) => (r as { rows: T[] }).rows);
  }

  #isKnown(queue: string): boolean {
    return this.#known().includes(queue);
  }

  async listQueues(): Promise<QueueSummary[]> {
    // Counted here rather than read from getQueues(): pg-boss refreshes those counts only on its
    // monitor pass, and the dashboard must show a retried job leave its queue at once.
    const names = this.#known();
    const rows = await this.#sql<{
      name: string;
      queued: number;
      deferred: number;
      active: number;
      failed: number;
      total: number;
      age: number | null;
    }>(
      `select name,
              count(*) filter (where state < 'active')::int as queued,
              count(*) filter (where state < 'active' and start_after > now())::int as deferred,
              count(*) filter (where state = 'active')::int as active,
              count(*) filter (where state = 'failed')::int as failed,
              count(*)::int as total,
              extract(epoch from now() - min(created_on) filter (where state < 'active'))::float8 as age
         from ${SCHEMA}.job where name = any($1::text[]) group by name`,
      [names],
    );
    const byName = new Map(rows.map((r) => [r.name, r]));
    return names
      .map((name) => {
        const r = byName.get(name);
        return {
          name,
          dead: name.endsWith(DEAD_SUFFIX),
          queued: r?.queued ?? 0,
          deferred: r?.deferred ?? 0,
          active: r?.active ?? 0,
          failed: r?.failed ?? 0,
          total: r?.total ?? 0,
          oldestAgeSeconds: r?.age === null || r?.age === undefined ? 0 : Math.round(Math.max(0, r.age) * 1000) / 1000,
        };
      })
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  async listJobs(queue: string, options: JobListOptions = {}): Promise<JobSummary[]> {
    if (!this.#isKnown(queue)) return [];
    const limit = Math.min(Math.max(options.limit ?? 50, 1), 500);
    const rows = await this.#sql<JobRow>(
      `select ${JOB_COLUMNS} from ${SCHEMA}.job where name = $1 and ($2::text is null or state::text = $2)
        and ($4::text is null or id::text = $4 or data::text ilike '%' || $4 || '%')
        order by created_on ${options.order === 'oldest' ? 'asc' : 'desc'} limit $3`,
      [queue, options.state ?? null, limit, options.search?.replace(/[\\%_]/g, (c) => `\\${c}`) ?? null],
    );
    return rows.map(toSummary);
  }

  async getJob(queue: string, id: string): Promise<JobSummary | null> {
    if (!this.#isKnown(queue) || !UUID.test(id)) return null;
    const rows = await this.#sql<JobRow>(`select ${JOB_COLUMNS} from ${SCHEMA}.job where name = $1 and id = $2`, [queue, id]);
    return rows[0] === undefined ? null : toSummary(rows[0]);
  }

  async retryJob(queue: string, id: string): Promise<boolean> {
    const job = await this.getJob(queue, id);
    if (job === null) return false;
    if (queue.endsWith(DEAD_SUFFIX)) {
      if (job.state !== 'created' && job.state !== 'retry' && job.state !== 'failed') return false;
      // Back to the queue it failed on, with a fresh attempt budget.
      const destination = job.sourceName ?? queue.slice(0, -DEAD_SUFFIX.length);
      return (await this.#boss.redrive(queue, { ids: [id], destination, limit: 1 })) > 0;
    }
    if (job.state !== 'failed') return false;
    // Its dead-letter copy still waits: that copy is the one to retry, or the job would run twice.
    if ((await this.deadCopyOf(queue, id)) !== null) return false;
    await this.#boss.retry(queue, id);
    return true;
  }

  /** The id of the waiting dead-letter copy of a failed job, or null. */
  async deadCopyOf(queue: string, id: string): Promise<string | null> {
    if (!this.#isKnown(`${queue}${DEAD_SUFFIX}`) || !UUID.test(id)) return null;
    const rows = await this.#sql<{ id: string }>(
      `select id from ${SCHEMA}.job where name = $1 and source_id = $2 and state < 'active' limit 1`,
      [`${queue}${DEAD_SUFFIX}`, id],
    );
    return rows[0]?.id ?? null;
  }

  async cancelJob(queue: string, id: string): Promise<boolean> {
    const job = await this.getJob(queue, id);
    if (job === null || (job.state !== 'created' && job.state !== 'retry')) return false;
    await this.#boss.cancel(queue, id);
    return (await this.getJob(queue, id))?.state === 'cancelled';
  }

  async depthHistory(minutes: number, stepMinutes: number): Promise<DepthPoint[]> {
    const rows = await this.#sql<{ at: Date; name: string | null; n: number }>(
      `with steps as (
         -- Steps on multiples of the step since the epoch, like the other charts' buckets.
         select generate_series(to_timestamp(floor(extract(epoch from now() - make_interval(mins => $1::int)) / ($2::int * 60)) * ($2::int * 60)),
                                now(), make_interval(mins => $2::int)) as at),
       jobs as (
         select name, created_on, coalesce(started_on, completed_on, 'infinity'::timestamptz) as left_on
           from ${SCHEMA}.job
          where name = any($3::text[]) and created_on <= now()
            and coalesce(started_on, completed_on, 'infinity'::timestamptz) > now() - make_interval(mins => $1::int))
       select s.at, j.name, count(j.name)::int as n
         from steps s left join jobs j on j.created_on <= s.at and j.left_on > s.at
        group by s.at, j.name order by s.at`,
      [Math.round(minutes), Math.max(1, Math.round(stepMinutes)), this.#known()],
    );
    const points = new Map<string, DepthPoint>();
    for (const r of rows) {
      const at = new Date(r.at).toISOString();
      const point = points.get(at) ?? { at, queued: {} };
      if (r.name !== null) point.queued[r.name] = Number(r.n);
      points.set(at, point);
    }
    return [...points.values()];
  }
}
