// Every job of waybill: its name, its payload and its queue settings, in one typed map.
// Services enqueue through JobSender (a port), so they never import pg-boss.
import type { Executor } from '../db/database.ts';
import type { Logger } from '../logger.ts';
import { SHOP_TIERS } from '../shops/shop-tiers.ts';

export interface JobMap {
  /**
   * POST one signed event to a shop's webhook URL. `event`: waybill's type (feed.completed,
   * order.created, order.status_changed); the client-facing name is derived at delivery.
   */
  'webhook.deliver': { shopPk: number; messageId: string; event: string; payload: Record<string, unknown> };
  /** One run of a connector: a cron tick (scheduledFor = the tick, ISO), run now (manual), or a file dropped in its watched folder (file). */
  'connector.run': { name: string; trigger: 'schedule' | 'manual' | 'file'; scheduledFor: string | null };
  /** Apply a feed's items (catalog writes); resumes after the last committed chunk. */
  'feed.process': { feedPk: string };
  /** Drop feeds (with payloads and results) older than 30 days. */
  'prune.feeds': Record<string, never>;
  /** Drop Idempotency-Key replies older than 24 h. */
  'prune.idempotency-keys': Record<string, never>;
  /** Drop webhook delivery records older than 30 days. */
  'prune.webhook-deliveries': Record<string, never>;
  /** Drop receipts of deliveries pushed to connectors older than 7 days. */
  'prune.receipts': Record<string, never>;
  /**
   * VACUUM (ANALYZE) the catalog's tables after a large feed, so lists read only the index
   * right after a big import (CatalogService.tidy). One queued and one running at most.
   */
  'catalog.tidy': Record<string, never>;
}
export type JobName = keyof JobMap;

/** Jobs the scheduler role queues on a cron schedule (UTC), once per tick across replicas. */
export const maintenanceSchedules = {
  'prune.feeds': '17 3 * * *',
  'prune.idempotency-keys': '17 3 * * *',
  'prune.webhook-deliveries': '17 3 * * *',
  'prune.receipts': '17 3 * * *',
} as const satisfies Partial<Record<JobName, string>>;

/**
 * Jobs of earlier versions: unscheduled (feed.prune and feed.recover were pg-boss's cron) and
 * their queues removed at start. Stopped feeds are recovered by each worker's watch
 * (src/feeds/feed-recovery.service.ts), no longer by a feeds.requeue-stopped job.
 */
export const retiredJobs = ['feed.prune', 'feed.recover', 'feeds.requeue-stopped'] as const;

export interface QueueSettings {
  /** Attempts after the first, for transient errors only. */
  retryLimit: number;
  /** Seconds before the first retry; doubled each time (with jitter) when retryBackoff. */
  retryDelay: number;
  retryBackoff: boolean;
  /** With retryBackoff: the longest wait between two attempts, seconds (default: no cap). */
  retryDelayMax?: number;
  /** A job active longer than this is taken as crashed and retried, seconds. */
  expireInSeconds: number;
  /** Jobs of this queue run at once in one worker process. */
  concurrency: number;
  /** Wake workers by LISTEN/NOTIFY the moment a job is sent (polling stays as the floor). */
  notify: boolean;
  policy: 'standard' | 'singleton' | 'stately' | 'exclusive';
  /**
   * Jobs handed to the handler at once (a BatchJobHandler); `concurrency` is then the batches in
   * flight per process. A batch is fetched again at once while batches come back full.
   */
  batch?: number;
  /**
   * Fair share between groups (a job's group is its shop): the jobs of one group active at once
   * across every replica, by the group's tier (jobs without a tier: `default`). A group at its
   * share is skipped by the fetch, so another group's job is taken first.
   */
  groupShare?: { default: number; tiers: Record<string, number> };
}

/** A job's group (fair share between shops): its id and tier (src/shops/shop-tiers.ts). */
export interface JobGroup {
  id: string;
  tier?: string;
}

/** Feed jobs fetched and handled at once by one worker. */
export const FEED_BATCH = 50;
/** A shop's share of the feed queue in jobs: its tier's batches (SHOP_TIERS) times the batch. */
function shares(batch: number): { default: number; tiers: Record<string, number> } {
  return {
    default: SHOP_TIERS.standard * batch,
    tiers: Object.fromEntries(Object.entries(SHOP_TIERS).map(([tier, n]) => [tier, n * batch])),
  };
}

const prune: QueueSettings = {
  retryLimit: 3,
  retryDelay: 60,
  retryBackoff: true,
  expireInSeconds: 600,
  concurrency: 1,
  notify: false,
  policy: 'standard',
};

export const queueSettings: { [K in JobName]: QueueSettings } = {
  // One POST per attempt, so the job's attempts and the Webhooks page's are one count: 15
  // attempts, due 1-2 s after the first failure (workers find due retries every 5 s), then
  // twice as long each time up to an hour apart: given up 3-4 h after the first attempt.
  'webhook.deliver': {
    retryLimit: 14,
    retryDelay: 1,
    retryBackoff: true,
    retryDelayMax: 3_600,
    expireInSeconds: 120,
    concurrency: 4,
    notify: true,
    policy: 'standard',
  },
  // exclusive + singletonKey = connector name: one queued or running run per connector, so a
  // tick during a long run is dropped, not doubled. Transient failures retry 3 times from 30 s.
  'connector.run': {
    retryLimit: 3,
    retryDelay: 30,
    retryBackoff: true,
    expireInSeconds: 3_600,
    concurrency: 2,
    notify: true,
    policy: 'exclusive',
  },
  // Transient failures (database away, a feed locked by another worker) retry from 1 s, doubling.
  // expireInSeconds bounds one run (a dead worker's feed is queued again by the workers' watch,
  // src/feeds/feed-recovery.service.ts). No
  // NOTIFY: its lock at commit serialized every feed-creating transaction (measured: commits
  // waiting on Lock:object); the accepting process wakes its own workers (JobQueue.wake), other
  // replicas poll every 2 s. Batches of FEED_BATCH feeds (their small feeds applied in one
  // transaction), `concurrency` batches in flight per process (WAYBILL_WORKER_CONCURRENCY); a
  // shop holds at most its tier's share of batches at once, across replicas.
  'feed.process': {
    retryLimit: 8,
    retryDelay: 1,
    retryBackoff: true,
    expireInSeconds: 900,
    concurrency: 4,
    notify: false,
    policy: 'standard',
    batch: FEED_BATCH,
    groupShare: shares(FEED_BATCH),
  },
  'prune.feeds': prune,
  'prune.idempotency-keys': prune,
  'prune.webhook-deliveries': prune,
  'prune.receipts': prune,
  // stately: a large feed done while a run is queued adds nothing (that run covers it).
  'catalog.tidy': {
    retryLimit: 2,
    retryDelay: 5,
    retryBackoff: true,
    expireInSeconds: 900,
    concurrency: 1,
    notify: false,
    policy: 'stately',
  },
};

/** Queue of a name's exhausted or permanently failed jobs. */
export const deadLetterQueue = (name: JobName): string => `${name}.dead`;

export interface SendOptions {
  /** With a singleton/stately policy: the key that makes jobs unique (connector name...). */
  singletonKey?: string;
  /** The job's group, for a queue with a groupShare. */
  group?: JobGroup;
  startAfter?: Date | number;
  id?: string;
}

/** What services use to enqueue: inside their transaction (pass the trx) or alone (pass the pool). */
export interface JobSender {
  send<K extends JobName>(db: Executor, name: K, data: JobMap[K], options?: SendOptions): Promise<string | null>;
  /** One job per payload, all in one statement (a group-committed batch). */
  sendMany<K extends JobName>(db: Executor, name: K, jobs: { data: JobMap[K]; group?: JobGroup }[]): Promise<void>;
  /** Wakes this process's workers of a queue (after the send's transaction committed). */
  wake?(name: JobName): void;
}

export interface JobContext {
  jobId: string;
  /** 0 on the first attempt. */
  retryCount: number;
  signal: AbortSignal;
  log: Logger;
}

export type JobHandler<K extends JobName> = (data: JobMap[K], ctx: JobContext) => Promise<void>;
/** Queues whose handler takes a batch of jobs (QueueSettings.batch). */
export type BatchJobName = 'feed.process';
/** Handles a batch; says per job (in order) whether it succeeded or why it failed. */
export type BatchJobHandler<K extends JobName> = (jobs: { data: JobMap[K]; ctx: JobContext }[]) => Promise<PromiseSettledResult<void>[]>;
export type JobHandlers = { [K in JobName]: K extends BatchJobName ? BatchJobHandler<K> : JobHandler<K> };
