// pg-boss in the application's database: queues created from the job map, typed send
// (inside the caller's Kysely transaction), workers that retry transient errors only and
// send permanent failures straight to the queue's dead-letter queue.
import { PgBoss, type Db as BossDb, type Job } from 'pg-boss';
import { queryPrepared, type Executor } from '../db/database.ts';
import { isTransient } from '../errors.ts';
import type { Logger } from '../logger.ts';
import {
  deadLetterQueue,
  queueSettings,
  retiredJobs,
  type BatchJobHandler,
  type JobContext,
  type JobHandlers,
  type JobMap,
  type JobName,
  type JobSender,
  type SendOptions,
} from './job-map.ts';
import { metrics } from '../metrics/metrics.ts';
import { PgBossInspector } from './pg-boss-inspector.ts';

export interface JobQueueOptions {
  connectionString: string;
  logger: Logger;
  /** Runs pg-boss maintenance (the scheduler role, or "all"). */
  supervise: boolean;
  /** Pool size of pg-boss's own connections. */
  max?: number;
  /** Bound on waiting for and opening one of its connections, ms (WAYBILL_DB_TIMEOUT_MS). */
  connectTimeoutMs?: number;
}

/**
 * The time limit of each of pg-boss's own statements (fetching, completing, maintenance), ms,
 * server and client side. No request waits on them (jobs are sent in the application's
 * transactions, under WAYBILL_DB_TIMEOUT_MS); its maintenance deletes old jobs in bulk, so the
 * limit is generous: it only stops a worker from waiting forever on a database that stopped
 * answering.
 */
export const JOB_QUEUE_TIME_LIMIT_MS = 60_000;

/**
 * A running job's worker touches it every HEARTBEAT_SECONDS / 2; a job not touched for
 * HEARTBEAT_SECONDS (its process was killed, or its database connection died while it
 * settled) is failed by the supervisor and retried, instead of waiting out expireInSeconds.
 */
const HEARTBEAT_SECONDS = 30;

export const jobNames = Object.keys(queueSettings) as JobName[];

/** Ids a job's payload may name (a feed, a connector run, an order): copied onto each of its log lines. */
const LOG_IDS = ['feedPk', 'feedId', 'runId', 'orderPk', 'connector'] as const;
const logIds = (data: unknown): Record<string, unknown> => {
  const out: Record<string, unknown> = {};
  if (typeof data !== 'object' || data === null) return out;
  for (const k of LOG_IDS) {
    const v = (data as Record<string, unknown>)[k];
    if (typeof v === 'string' || typeof v === 'number') out[k] = v;
  }
  return out;
};

/**
 * pg-boss's statements in the caller's transaction, prepared: its insert is the same text for a
 * queue every time, and planning it cost more than running it (docs/benchmarks.md).
 */
const inTransactionOf = (db: Executor): BossDb => ({
  executeSql: async (text: string, values?: unknown[]) => ({ rows: await queryPrepared(db, text, values ?? []) }),
});

export class JobQueue implements JobSender {
  readonly boss: PgBoss;
  /** The admin API's and the metrics' view of the queues. */
  readonly inspector: PgBossInspector;
  readonly #log: Logger;
  #started = false;
  /** The workers of each queue this process works (a batch queue has one per batch in flight). */
  readonly #workers = new Map<JobName, string[]>();

  constructor(options: JobQueueOptions) {
    this.#log = options.logger.child({ component: 'jobs' });
    this.boss = new PgBoss({
      connectionString: options.connectionString,
      max: options.max ?? 8,
      application_name: `waybill-jobs/${process.pid}`,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
      // pg's pool options, passed through by pg-boss to its pg.Pool.
      ...({ statement_timeout: JOB_QUEUE_TIME_LIMIT_MS, query_timeout: JOB_QUEUE_TIME_LIMIT_MS } as object),
      useListenNotify: true,
      supervise: options.supervise,
      // Periodic jobs are ticked by the scheduler role (node-cron), not by pg-boss's cron.
      schedule: false,
      // How often the supervisor fails jobs whose worker stopped sending heartbeats, seconds.
      superviseIntervalSeconds: 15,
      migrate: true,
    });
    this.inspector = new PgBossInspector(this.boss, () => jobNames.flatMap((n) => [n, deadLetterQueue(n)]));
    this.boss.on('error', (error) => this.#log.error({ err: error }, 'job queue error'));
    this.boss.on('warning', (warning) => this.#log.warn({ warning }, 'job queue warning'));
  }

  async start(): Promise<void> {
    await this.boss.start();
    this.#started = true;
    const existing = new Set((await this.boss.getQueues()).map((q) => q.name));
    // Jobs of earlier versions, which pg-boss scheduled: their schedules would keep firing into
    // queues nobody works.
    for (const name of retiredJobs) {
      await this.boss.unschedule(name);
      for (const queue of [name, `${name}.dead`]) if (existing.has(queue)) await this.boss.deleteQueue(queue);
    }
    for (const name of jobNames) {
      const s = queueSettings[name];
      const dead = deadLetterQueue(name);
      if (!existing.has(dead)) await this.boss.createQueue(dead, { retentionSeconds: 30 * 86_400, deleteAfterSeconds: 30 * 86_400 });
      const options = {
        policy: s.policy,
        retryLimit: s.retryLimit,
        retryDelay: s.retryDelay,
        retryBackoff: s.retryBackoff,
        ...(s.retryDelayMax === undefined ? {} : { retryDelayMax: s.retryDelayMax }),
        expireInSeconds: s.expireInSeconds,
        notify: s.notify,
        deadLetter: dead,
        deleteAfterSeconds: 7 * 86_400,
        heartbeatSeconds: HEARTBEAT_SECONDS,
      };
      if (existing.has(name)) {
        const { policy: _policy, deadLetter, ...updatable } = options;
        // pg-boss's updateQueue takes heartbeatSeconds too, though its type leaves it out.
        await this.boss.updateQueue(name, { ...updatable, deadLetter } as Parameters<PgBoss['updateQueue']>[1]);
      } else {
        await this.boss.createQueue(name, options).catch(async (error: unknown) => {
          // Another replica created it between our look and our create.
          if ((await this.boss.getQueue(name)) === null) throw error;
        });
      }
    }
  }

  async send<K extends JobName>(db: Executor, name: K, data: JobMap[K], options: SendOptions = {}): Promise<string | null> {
    return this.boss.send(name, data as object, { ...options, db: inTransactionOf(db) });
  }

  async sendMany<K extends JobName>(
    db: Executor,
    name: K,
    jobs: { data: JobMap[K]; group?: { id: string; tier?: string } }[],
  ): Promise<void> {
    if (jobs.length > 0) {
      await this.boss.insert(
        name,
        jobs.map((j) => ({ data: j.data as object, ...(j.group === undefined ? {} : { group: j.group }) })),
        { db: inTransactionOf(db) },
      );
    }
  }

  /**
   * Registers one handler per queue. A missing handler (or one for an unknown queue) fails
   * start-up: a job nobody works would wait forever.
   */
  async work(handlers: JobHandlers, concurrencyOverride?: Partial<Record<JobName, number>>): Promise<void> {
    const given = Object.keys(handlers);
    const missing = jobNames.filter((n) => typeof handlers[n] !== 'function');
    const unknown = given.filter((n) => !(jobNames as string[]).includes(n));
    if (missing.length > 0 || unknown.length > 0) {
      throw new Error(`job handlers do not match the job map: missing [${missing.join(', ')}], unknown [${unknown.join(', ')}]`);
    }
    for (const name of jobNames) {
      const s = queueSettings[name];
      const concurrency = concurrencyOverride?.[name] ?? s.concurrency;
      if (s.batch !== undefined) {
        this.#workers.set(name, await this.#workBatches(name, handlers[name] as BatchJobHandler<JobName>, concurrency, s.batch));
        continue;
      }
      const handler = handlers[name] as (data: unknown, ctx: JobContext) => Promise<void>;
      const workerId = await this.boss.work(
        name,
        {
          batchSize: 1,
          localConcurrency: concurrency,
          pollingIntervalSeconds: 2,
          notifyPollingIntervalSeconds: 5,
          perJobResults: true,
        },
        async (jobs: Job<unknown>[]) =>
          Promise.all(
            jobs.map(async (job) => {
              const ctx = this.#contextOf(name, job);
              try {
                await handler(job.data, ctx);
                return this.#settled(name, job, ctx, { status: 'fulfilled', value: undefined });
              } catch (error) {
                return this.#settled(name, job, ctx, { status: 'rejected', reason: error });
              }
            }),
          ),
      );
      this.#workers.set(name, [workerId]);
    }
  }

  /**
   * A batch queue's workers: `slots` of them (each fetching `batch` jobs, again at once while
   * its batches come back full), each its own pg-boss worker so that wake() reaches them all.
   * With a groupShare, a fetch skips the groups holding their share of active jobs.
   */
  async #workBatches(name: JobName, handler: BatchJobHandler<JobName>, slots: number, batch: number): Promise<string[]> {
    const share = queueSettings[name].groupShare;
    const ids: string[] = [];
    for (let i = 0; i < slots; i++) {
      ids.push(
        await this.boss.work(
          name,
          {
            batchSize: batch,
            localConcurrency: 1,
            burstWhenBatchFull: true,
            pollingIntervalSeconds: 2,
            notifyPollingIntervalSeconds: 5,
            perJobResults: true,
            ...(share === undefined ? {} : { groupConcurrency: share }),
          },
          async (jobs: Job<unknown>[]) => {
            const each = jobs.map((job) => ({ job, ctx: this.#contextOf(name, job) }));
            const results = await handler(each.map(({ job, ctx }) => ({ data: job.data as never, ctx })));
            return each.map(({ job, ctx }, i) =>
              this.#settled(name, job, ctx, results[i] ?? { status: 'rejected', reason: new Error('no result for this job') }),
            );
          },
        ),
      );
    }
    return ids;
  }

  #contextOf(name: JobName, job: Job<unknown>): JobContext {
    const log = this.#log.child({ job: name, jobId: job.id, attempt: job.retryCount + 1, ...logIds(job.data) });
    return { jobId: job.id, retryCount: job.retryCount, signal: job.signal, log };
  }

  /** A handled job's outcome for pg-boss: completed, failed (retried: transient) or dead-lettered. */
  #settled(name: JobName, job: Job<unknown>, ctx: JobContext, result: PromiseSettledResult<void>) {
    if (result.status === 'fulfilled') {
      metrics.jobFinished(name, 'completed');
      return { id: job.id, status: 'completed' as const };
    }
    const error: unknown = result.reason;
    // The stack too: the dashboard's job page shows a failure in full.
    const output = {
      message: error instanceof Error ? error.message : String(error),
      code: (error as { code?: string }).code,
      stack: error instanceof Error ? error.stack : undefined,
    };
    if (isTransient(error)) {
      ctx.log.warn({ err: error }, 'job failed, will retry');
      metrics.jobFinished(name, 'retry');
      return { id: job.id, status: 'failed' as const, output };
    }
    ctx.log.error({ err: error }, 'job failed permanently, moved to the dead-letter queue');
    metrics.jobFinished(name, 'dead');
    return { id: job.id, status: 'deadletter' as const, output };
  }

  /**
   * Wakes this process's worker of a queue now (call it after the sending transaction has
   * committed): a job sent here starts at once without a NOTIFY, whose global lock at commit
   * would serialize every sending transaction. Other processes find it by polling.
   */
  wake(name: JobName): void {
    for (const id of this.#workers.get(name) ?? []) this.boss.notifyWorker(id);
  }

  /** True when the queue's database answers. */
  async ready(): Promise<boolean> {
    if (!this.#started) return false;
    try {
      await this.boss.getDb().executeSql('select 1');
      return true;
    } catch {
      return false;
    }
  }

  /** Stops fetching, waits for running jobs up to timeoutMs, then closes pg-boss's pool. */
  async stop(timeoutMs: number): Promise<void> {
    if (!this.#started) return;
    this.#started = false;
    await this.boss.stop({ graceful: true, timeout: Math.max(timeoutMs, 1000), close: true });
  }
}
