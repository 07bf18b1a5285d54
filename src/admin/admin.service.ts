// What admins see and do across areas: queue and job inspection and actions, recent logs,
// the overview figures and charts. Feeds, orders and connectors stay in their own services;
// this one only combines them for the dashboard.
import { AppError, notFound } from '../errors.ts';
import type { DepthPoint, JobSummary, QueueInspector, QueueSummary } from '../jobs/pg-boss-inspector.ts';
import type { ShopService } from '../shops/shops.service.ts';
import type { JobListQuery, JobOut, LogQueryT, LogsOut, OverviewOut, QueueOut } from './admin.schemas.ts';
import type { StatsService } from '../stats/stats.service.ts';
import type { LogLineService } from '../logs/log-lines.service.ts';

/** The connector service as the overview reads it. */
export interface ConnectorLister {
  list(options?: { lastRuns?: number }): Promise<{ enabled: boolean; last_runs: { outcome: string }[] }[]>;
}

/** The webhook service as the overview reads it. */
export interface DeliveryCounter {
  undelivered(since: Date): Promise<{ failing: number; refused: number }>;
}

/** Hours back the overview counts webhook deliveries that did not get through. */
export const UNDELIVERED_HOURS = 24;

export interface AdminDeps {
  shops: ShopService;
  stats: StatsService;
  queues?: QueueInspector;
  /** Log lines of every process (log_lines). */
  logs?: LogLineService;
  connectors?: ConnectorLister;
  deliveries?: DeliveryCounter;
  /** Queues a failed feed again (its job alone would find it failed and skip it). */
  feeds?: FeedRetrier;
}

export interface FeedRetrier {
  retry(feedPk: string): Promise<unknown>;
}

// The feed queues and their dead-letter queues: a job of theirs names its feed.
const FEED_QUEUE = /^feed\.process(\.dead)?$/;

const toQueue = (q: QueueSummary): QueueOut => ({
  name: q.name,
  dead: q.dead,
  queued: q.queued,
  deferred: q.deferred,
  active: q.active,
  failed: q.failed,
  total: q.total,
  oldest_age_seconds: q.oldestAgeSeconds,
});

const errorOf = (output: unknown): string | null => {
  if (typeof output !== 'object' || output === null) return null;
  const o = output as { message?: unknown; value?: unknown };
  if (typeof o.message === 'string') return o.message;
  return typeof o.value === 'string' ? o.value : null;
};

export const toJob = (j: JobSummary): JobOut => ({
  id: j.id,
  queue: j.queue,
  state: j.state,
  data: j.data,
  // pg-boss counts a claim after the first as a retry (retry_count + 1 when the job had started
  // before), so a started job has made retryCount + 1 attempts; a dead-letter copy carries the
  // retry count of the job that failed.
  attempts: j.sourceRetryCount !== null ? j.sourceRetryCount + 1 : j.startedOn === null ? 0 : j.retryCount + 1,
  retry_limit: j.retryLimit,
  created_at: j.createdOn,
  started_at: j.startedOn,
  completed_at: j.completedOn,
  error: errorOf(j.output),
  output: j.output,
  source_queue: j.sourceName,
  source_id: j.sourceId,
});

export class AdminService {
  readonly #shops: ShopService;
  readonly #queues: QueueInspector | undefined;
  readonly #logs: LogLineService | undefined;
  readonly #stats: StatsService;
  readonly #connectors: ConnectorLister | undefined;
  readonly #deliveries: DeliveryCounter | undefined;
  readonly #feeds: FeedRetrier | undefined;
  /** The queue-depth history is the costly part of the overview; its points are minutes apart. */
  #history: { key: string; until: number; value: Promise<DepthPoint[]> } | null = null;

  constructor(deps: AdminDeps) {
    this.#shops = deps.shops;
    this.#queues = deps.queues;
    this.#logs = deps.logs;
    this.#stats = deps.stats;
    this.#connectors = deps.connectors;
    this.#deliveries = deps.deliveries;
    this.#feeds = deps.feeds;
  }

  /** Feeds kept, by type and state (the /metrics gauge). */
  feedCounts(): Promise<{ type: string; state: string; count: number }[]> {
    return this.#stats.feedCounts();
  }

  /** Connectors by how their last run ended: failed, partial (items or files refused), skipped (no shop yet). */
  async #connectorSummary(): Promise<OverviewOut['connectors']> {
    const service = this.#connectors;
    if (service === undefined) return null;
    const list = await service.list({ lastRuns: 1 });
    const last = (outcome: string): number => list.filter((c) => c.last_runs[0]?.outcome === outcome).length;
    return {
      total: list.length,
      enabled: list.filter((c) => c.enabled).length,
      failing: last('failed'),
      partial: last('partial'),
      skipped: last('skipped'),
    };
  }

  #inspector(): QueueInspector {
    if (this.#queues === undefined) throw new AppError('unavailable', 503, 'The job queue is not inspectable from this process.');
    return this.#queues;
  }

  async queues(): Promise<QueueOut[]> {
    return (await this.#inspector().listQueues()).map(toQueue);
  }

  async #knownQueue(queue: string): Promise<void> {
    const names = (await this.#inspector().listQueues()).map((q) => q.name);
    if (!names.includes(queue)) throw notFound(`Queue ${queue}`);
  }

  async jobs(queue: string, query: JobListQuery = {}): Promise<JobOut[]> {
    await this.#knownQueue(queue);
    return (await this.#inspector().listJobs(queue, { state: query.state, limit: query.limit, search: query.q, order: query.order })).map(
      toJob,
    );
  }

  /** Jobs of every queue whose id is `q` or whose data holds it, newest (or oldest) first. */
  async searchJobs(query: JobListQuery & { q?: string }): Promise<JobOut[]> {
    const limit = query.limit ?? 50;
    const names = (await this.#inspector().listQueues()).map((q) => q.name);
    const found = (
      await Promise.all(
        names.map((name) => this.#inspector().listJobs(name, { state: query.state, limit, search: query.q, order: query.order })),
      )
    ).flat();
    const sign = query.order === 'oldest' ? 1 : -1;
    return found
      .sort((a, b) => sign * a.createdOn.localeCompare(b.createdOn))
      .slice(0, limit)
      .map(toJob);
  }

  async job(queue: string, id: string): Promise<JobOut> {
    const job = await this.#inspector().getJob(queue, id);
    if (job === null) throw notFound(`Job ${id} of queue ${queue}`);
    return toJob(job);
  }

  /** Retries a failed or dead-lettered job; 409 when the job is in another state. */
  async retryJob(queue: string, id: string): Promise<{ ok: true; detail: string }> {
    const job = await this.job(queue, id);
    const feedPk = (job.data as { feedPk?: unknown } | null)?.feedPk;
    const feeds = this.#feeds;
    const dead = queue.endsWith('.dead');
    // A feed job that failed for good marked its feed failed; run again, it would find the feed
    // failed and skip it. So the feed is queued again (a new job), and a dead copy leaves its queue.
    if (
      FEED_QUEUE.test(queue) &&
      typeof feedPk === 'string' &&
      feeds !== undefined &&
      (dead
        ? ['created', 'retry', 'failed'].includes(job.state)
        : job.state === 'failed' && (await this.#inspector().deadCopyOf(queue, id)) === null)
    ) {
      await feeds.retry(feedPk);
      if (dead) await this.#inspector().cancelJob(queue, id);
      return { ok: true, detail: `Feed ${feedPk} of job ${id} was queued again.` };
    }
    if (!(await this.#inspector().retryJob(queue, id))) {
      const copy = job.state === 'failed' ? await this.#inspector().deadCopyOf(queue, id) : null;
      if (copy !== null) {
        throw new AppError(
          'not_retryable',
          409,
          `Job ${id} failed for good: retry its copy ${copy} in ${queue}.dead instead (retrying both would run it twice).`,
          { extra: { dead_copy: { queue: `${queue}.dead`, id: copy } } },
        );
      }
      throw new AppError(
        'not_retryable',
        409,
        `Job ${id} is ${job.state}; only failed jobs and jobs of a dead-letter queue can be retried.`,
      );
    }
    return {
      ok: true,
      detail:
        job.source_queue !== null || queue.endsWith('.dead')
          ? `Job ${id} was moved back to ${job.source_queue ?? queue.slice(0, -5)}.`
          : `Job ${id} will run again.`,
    };
  }

  /** Cancels a waiting job; 409 when it is running or over. */
  async cancelJob(queue: string, id: string): Promise<{ ok: true; detail: string }> {
    const job = await this.job(queue, id);
    if (!(await this.#inspector().cancelJob(queue, id))) {
      throw new AppError('not_cancellable', 409, `Job ${id} is ${job.state}; only waiting jobs (created, retry) can be cancelled.`);
    }
    return { ok: true, detail: `Job ${id} was cancelled.` };
  }

  async logs(query: LogQueryT = {}): Promise<LogsOut> {
    if (this.#logs === undefined) return { lines: [], last_seq: 0, capacity: 0, dropped: 0 };
    const level = query.level === '' ? undefined : query.level;
    return { ...(await this.#logs.query({ ...query, level })), capacity: this.#logs.keep, dropped: this.#logs.dropped };
  }

  /** Rebuilt at most every 15 s per span (the page polls every 5 s; steps are minutes). */
  #depthHistory(inspector: QueueInspector, hours: number, stepMinutes: number): Promise<DepthPoint[]> {
    const key = `${hours}/${stepMinutes}`;
    const now = Date.now();
    if (this.#history === null || this.#history.key !== key || this.#history.until < now) {
      const value = inspector.depthHistory(hours * 60, stepMinutes);
      this.#history = { key, until: now + 15_000, value };
      value.catch(() => {
        this.#history = null;
      });
    }
    return this.#history.value;
  }

  async overview(hours = 3): Promise<OverviewOut> {
    // About 60 points per chart whatever the span.
    const stepMinutes = Math.max(1, Math.round((hours * 60) / 60));
    const since = Date.now() - hours * 3_600_000;
    const inspector = this.#inspector();
    const [shops, keys, queues, history, feedStates, rates, errors, connectors, deliveries] = await Promise.all([
      this.#shops.count(),
      this.#shops.listKeys(),
      inspector.listQueues(),
      this.#depthHistory(inspector, hours, stepMinutes),
      this.#stats.feedCounts(),
      this.#stats.feedThroughput(new Date(since), stepMinutes),
      this.#stats.errorsPerMinute(new Date(since), stepMinutes),
      this.#connectorSummary(),
      this.#deliveries?.undelivered(new Date(Date.now() - UNDELIVERED_HOURS * 3_600_000)) ?? null,
    ]);
    const byState: Record<string, number> = { queued: 0, processing: 0, done: 0, partial: 0, failed: 0 };
    for (const c of feedStates) byState[c.state] = (byState[c.state] ?? 0) + c.count;
    const work = queues.filter((q) => !q.dead);
    const waiting = work.reduce((n, q) => n + q.queued, 0);
    // The depth history is rebuilt at most every 15 s: its last point is now, the cards' figure,
    // so the chart and the card above it never disagree.
    const depth = history.map((p) => ({
      at: p.at,
      value: Object.entries(p.queued)
        .filter(([name]) => !name.endsWith('.dead'))
        .reduce((n, [, v]) => n + v, 0),
    }));
    if (depth.length > 0) depth[depth.length - 1] = { ...depth.at(-1)!, value: waiting };
    return {
      generated_at: new Date().toISOString(),
      shops,
      active_keys: keys.filter((k) => k.revoked_at === null).length,
      queues: queues.map(toQueue),
      jobs: {
        waiting,
        active: work.reduce((n, q) => n + q.active, 0),
        dead: queues.filter((q) => q.dead).reduce((n, q) => n + q.queued, 0),
        oldest_age_seconds: Math.max(0, ...work.map((q) => q.oldestAgeSeconds)),
      },
      feeds: { by_state: byState },
      connectors,
      webhooks: deliveries === null ? null : { ...deliveries, hours: UNDELIVERED_HOURS },
      charts: {
        step_minutes: stepMinutes,
        queue_depth: depth,
        errors_per_minute: errors,
        feeds_per_minute: rates.feeds,
        items_per_minute: rates.items,
        item_errors_per_minute: rates.failed,
      },
    };
  }
}
