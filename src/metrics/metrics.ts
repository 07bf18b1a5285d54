// Prometheus metrics of the process, served at /metrics. Counters and histograms are process-wide
// (one registry); gauges read their sources (pool, queues, feeds) when scraped, so a scrape
// always shows the present and costs nothing between scrapes.
//
// Other areas record their events with the small functions of `metrics`:
//   metrics.feedItems(type, 'succeeded' | 'failed', n)   as a feed's items are processed
//   metrics.connectorRun(connector, outcome)             when a connector run ends
//   metrics.carrierCall(carrier, status)                 after each carrier API call (HTTP status, or 'error')
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** One queue's depth as the job-queue port reports it. */
export interface QueueDepth {
  name: string;
  /** Jobs ready or waiting (created + retry), not yet active. */
  queued: number;
  active: number;
  /** Seconds since the oldest queued job was created; 0 when none waits. */
  oldestAgeSeconds: number;
}

export interface PoolUsage {
  total: number;
  idle: number;
  waiting: number;
  max: number;
}

export interface FeedCount {
  type: string;
  state: string;
  count: number;
}

/** Where the scrape-time gauges read from; set by the composition root of the process. */
export interface MetricSources {
  pool?: () => PoolUsage;
  queues?: () => Promise<QueueDepth[]>;
  feeds?: () => Promise<FeedCount[]>;
}

export const registry = new Registry();
registry.setDefaultLabels({ service: 'waybill' });
collectDefaultMetrics({ register: registry, prefix: 'waybill_' });

let sources: MetricSources = {};

const httpRequests = new Counter({
  name: 'waybill_http_requests_total',
  help: 'HTTP requests answered, by route pattern, method and status code.',
  labelNames: ['route', 'method', 'status'] as const,
  registers: [registry],
});

const httpDuration = new Histogram({
  name: 'waybill_http_request_duration_seconds',
  help: 'Time to answer an HTTP request, seconds, by route pattern and method.',
  labelNames: ['route', 'method'] as const,
  // 1 ms to 10 s: catalog writes answer in milliseconds, large pages in a second or two.
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

const feedItemsTotal = new Counter({
  name: 'waybill_feed_items_total',
  help: 'Feed items processed, by feed type and outcome (succeeded, failed).',
  labelNames: ['type', 'outcome'] as const,
  registers: [registry],
});

const connectorRuns = new Counter({
  name: 'waybill_connector_runs_total',
  help: 'Connector runs finished, by connector name and outcome.',
  labelNames: ['connector', 'outcome'] as const,
  registers: [registry],
});

const carrierCalls = new Counter({
  name: 'waybill_carrier_api_calls_total',
  help: 'Calls to carrier tracking APIs, by carrier and HTTP status (or "error" when no answer came).',
  labelNames: ['carrier', 'status'] as const,
  registers: [registry],
});

const jobsFinished = new Counter({
  name: 'waybill_jobs_finished_total',
  help: 'Jobs a worker of this process finished, by queue and outcome (completed, retry, dead).',
  labelNames: ['queue', 'outcome'] as const,
  registers: [registry],
});

new Gauge({
  name: 'waybill_db_pool_connections',
  help: 'Connections of the application Postgres pool, by state (total, idle, waiting clients, max).',
  labelNames: ['state'] as const,
  registers: [registry],
  collect() {
    const usage = sources.pool?.();
    if (usage === undefined) return;
    this.reset();
    this.set({ state: 'total' }, usage.total);
    this.set({ state: 'idle' }, usage.idle);
    this.set({ state: 'in_use' }, usage.total - usage.idle);
    this.set({ state: 'waiting' }, usage.waiting);
    this.set({ state: 'max' }, usage.max);
  },
});

// The three queue gauges share one read of the queues per scrape.
let queueRead: { at: number; value: Promise<QueueDepth[]> } | null = null;
const readQueues = (): Promise<QueueDepth[]> => {
  const now = Date.now();
  if (sources.queues === undefined) return Promise.resolve([]);
  if (queueRead === null || now - queueRead.at > 500) queueRead = { at: now, value: sources.queues().catch(() => []) };
  return queueRead.value;
};

new Gauge({
  name: 'waybill_job_queue_depth',
  help: 'Jobs waiting in each queue (created or retrying), dead-letter queues included.',
  labelNames: ['queue'] as const,
  registers: [registry],
  async collect() {
    const queues = await readQueues();
    this.reset();
    for (const q of queues) this.set({ queue: q.name }, q.queued);
  },
});

new Gauge({
  name: 'waybill_job_queue_active',
  help: 'Jobs being worked right now, per queue.',
  labelNames: ['queue'] as const,
  registers: [registry],
  async collect() {
    const queues = await readQueues();
    this.reset();
    for (const q of queues) this.set({ queue: q.name }, q.active);
  },
});

new Gauge({
  name: 'waybill_job_queue_oldest_age_seconds',
  help: 'Age of the oldest waiting job of each queue, seconds (0 when none waits).',
  labelNames: ['queue'] as const,
  registers: [registry],
  async collect() {
    const queues = await readQueues();
    this.reset();
    for (const q of queues) this.set({ queue: q.name }, q.oldestAgeSeconds);
  },
});

new Gauge({
  name: 'waybill_feeds',
  help: 'Feeds kept (30 days), by type and state (queued, processing, done, partial: done with item errors, failed).',
  labelNames: ['type', 'state'] as const,
  registers: [registry],
  async collect() {
    if (sources.feeds === undefined) return;
    const counts = await sources.feeds().catch(() => null);
    if (counts === null) return;
    this.reset();
    for (const c of counts) this.set({ type: c.type, state: c.state }, c.count);
  },
});

const label = (v: string | number): string => String(v).slice(0, 100);

export const metrics = {
  /** Recorded by the HTTP plugin for every reply. `route` is the pattern (/shops/:shop/feeds/), never the raw URL. */
  httpRequest(route: string, method: string, status: number, seconds: number): void {
    httpRequests.inc({ route, method, status: String(status) });
    httpDuration.observe({ route, method }, seconds);
  },
  /** Items of a feed processed: call with the counts of each batch (or once per feed). */
  feedItems(type: string, outcome: 'succeeded' | 'failed', count = 1): void {
    if (count > 0) feedItemsTotal.inc({ type: label(type), outcome }, count);
  },
  /** A connector run ended (outcome: succeeded, partial, failed, throttled, skipped). */
  connectorRun(connector: string, outcome: string): void {
    connectorRuns.inc({ connector: label(connector), outcome: label(outcome) });
  },
  /** A carrier API answered with `status` (HTTP code), or 'error' / 'timeout' when it did not answer. */
  carrierCall(carrier: string, status: number | string): void {
    carrierCalls.inc({ carrier: label(carrier).toLowerCase(), status: label(status) });
  },
  /** A job ended in this process's worker. */
  jobFinished(queue: string, outcome: 'completed' | 'retry' | 'dead'): void {
    jobsFinished.inc({ queue, outcome });
  },
  /** Where the scrape-time gauges read; returns a function that removes these sources. */
  setSources(next: MetricSources): () => void {
    sources = next;
    queueRead = null;
    return () => {
      if (sources === next) sources = {};
    };
  },
  /** The text exposition of every metric (Prometheus format). */
  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: registry.contentType, body: await registry.metrics() };
  },
};
