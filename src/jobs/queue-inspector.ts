// A port for looking into the job queue and acting on single jobs (admin API, metrics), so
// services never import pg-boss. JobQueue implements it.

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
  /** Newest first; default 50, at most 500. */
  limit?: number;
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
