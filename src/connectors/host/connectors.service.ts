// Connector instances at run time: listing, run now, enable/disable, the run itself (with its
// record, lock and context), the cron tick, and pushed requests to receivers.
import type { Config } from '../../config.ts';
import { secretFromEnv } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { AppError, isTransient, notFound, unavailable } from '../../errors.ts';
import type { JobSender } from '../../jobs/job-map.ts';
import type { Logger } from '../../logger.ts';
import { metrics } from '../../metrics/metrics.ts';
import { contentHash } from '../../catalog/content-hash.ts';
import {
  LAST_INPUT_KEY,
  ThrottledError,
  userError,
  type AnyConnectorDefinition,
  type ConnectorContext,
  type DeltaStore,
  type ProcessedStore,
  type ReceiverContext,
  type ReceiverRequest,
  type ReceiverResponse,
  type RunReport,
} from '../../../connectors/sdk/index.ts';
import type { ConnectorInstance } from './config-file.ts';
import { ConnectorSet, type ReloadResult } from './connector-set.ts';
import type { ConnectorRun, ConnectorSummary, RunNowResult, RunTrigger } from './connectors.schemas.ts';
import { outcomeOf, shownOptions, toRun } from './connectors.presenter.ts';
import { once, type ClaimStore } from '../../idempotency/claims.ts';
import * as repo from './connectors.repository.ts';
import type { PortFactory } from './ports.ts';
import { tickJobId } from '../../jobs/tick-id.ts';
import { createReport } from './run-context.ts';
import { receiverPaths } from './receiver-routes.ts';

export interface ConnectorServiceDeps {
  db: Db;
  jobs: JobSender;
  config: Pick<Config, 'connectorsFile'>;
  logger: Logger;
  /** The connector types this daemon knows (connectors/index.ts, given by main.ts). */
  types: readonly AnyConnectorDefinition[];
  /** The catalog, tracking and http ports of each instance's context (ports.ts). */
  ports: PortFactory;
  /** {base_url} of the feeds runs create outside a request (PUBLIC_URL, else http://HOST:PORT). */
  baseUrl: string;
  /** Instances given directly (tests); default: read config.connectorsFile on first use. */
  instances?: ConnectorInstance[];
}

export interface ExecuteInput {
  name: string;
  trigger: RunTrigger;
  scheduledFor?: Date | null;
  jobId?: string | null;
  /** 1 on a job's first attempt. */
  attempt?: number;
  signal?: AbortSignal;
  log?: Logger;
  /** `connectors run --full`: the connector ignores its incremental cursor (ctx.full). */
  full?: boolean;
}

export type ExecuteResult =
  | { status: 'done'; run: ConnectorRun; error?: unknown }
  /** Another process (replica, CLI) is running this connector now. */
  | { status: 'busy' }
  /** A scheduled tick of a connector disabled since it was queued. */
  | { status: 'disabled' }
  /** The remote API asked to wait (Retry-After) until then: not run. */
  | { status: 'throttled'; until: Date };

/** Days a pushed delivery's receipt is kept: Standard Webhooks senders retry for about 3 days. */
export const RECEIPT_DAYS = 7;

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

export class ConnectorService {
  readonly #deps: ConnectorServiceDeps;
  readonly #log: Logger;
  readonly #set: ConnectorSet;

  constructor(deps: ConnectorServiceDeps) {
    this.#deps = deps;
    this.#log = deps.logger.child({ component: 'connectors' });
    this.#set = new ConnectorSet(deps.config.connectorsFile, deps.types, deps.instances);
  }

  /** Reads and validates the connectors file (once); throws a ConfigError naming every problem of every entry. */
  load(): ConnectorInstance[] {
    return this.#set.list();
  }

  /**
   * Reads the connectors file again (SIGHUP, the dashboard's Reload). A bad file changes
   * nothing and throws a ConfigError naming every problem; a good one replaces the connectors
   * of this process, and the scheduler reschedules.
   */
  reload(): ReloadResult {
    const result = this.#set.reload();
    this.#log.info(
      { file: this.#set.file, ...result },
      `connectors file reloaded: ${result.connectors.length} connector${result.connectors.length === 1 ? '' : 's'}`,
    );
    return result;
  }

  /** The connectors file this process reads (WAYBILL_CONNECTORS). */
  get file(): string {
    return this.#set.file;
  }

  /** Calls `listener` after each successful reload (the scheduler). */
  onReload(listener: (result: ReloadResult) => void): () => void {
    return this.#set.onReload(listener);
  }

  /** Logs a line when the connectors file changes on disk (it is applied by a reload only). */
  watchFile(): () => void {
    return this.#set.watchFile(this.#log);
  }

  #instance(name: string): ConnectorInstance {
    return this.#set.get(name);
  }

  async list(options: { lastRuns?: number } = {}): Promise<ConnectorSummary[]> {
    const instances = this.load();
    const settings = new Map((await repo.listSettings(this.#deps.db)).map((s) => [s.connector, s.enabled]));
    const runs = await repo.lastRuns(
      this.#deps.db,
      instances.map((i) => i.name),
      options.lastRuns ?? 5,
    );
    const throttled = await repo.throttledUntil(
      this.#deps.db,
      instances.map((i) => i.name),
    );
    return instances.map((i) => ({
      name: i.name,
      type: i.type,
      shop_pk: i.shopPk,
      schedule: i.schedule,
      enabled: settings.get(i.name) ?? i.enabled,
      enabled_in_file: i.enabled,
      options: shownOptions(i.options) as Record<string, unknown>,
      watches: i.definition.watchPaths?.(i.options as never) ?? [],
      receivers: receiverPaths(i.name, Object.keys(i.definition.receivers ?? {})),
      throttled_until: throttled.get(i.name)?.toISOString() ?? null,
      last_runs: runs.filter((r) => r.connector === i.name).map(toRun),
    }));
  }

  /** The summary a connector kept of its last input (LAST_INPUT_KEY: a file connector's last file); null: none yet. */
  async lastInput(name: string): Promise<Record<string, unknown> | null> {
    this.#instance(name);
    return ((await repo.getState(this.#deps.db, name, LAST_INPUT_KEY))?.value as Record<string, unknown> | undefined) ?? null;
  }

  async get(name: string): Promise<ConnectorSummary> {
    this.#instance(name);
    return (await this.list()).find((c) => c.name === name)!;
  }

  async runs(name: string, { limit = 50 }: { limit?: number } = {}): Promise<ConnectorRun[]> {
    this.#instance(name);
    return (await repo.listRuns(this.#deps.db, name, Math.min(Math.max(limit, 1), 1000))).map(toRun);
  }

  async isEnabled(name: string): Promise<boolean> {
    const inst = this.#instance(name);
    return (await repo.getSetting(this.#deps.db, name))?.enabled ?? inst.enabled;
  }

  /** Persists an override of the file's `enabled` (survives restarts; the scheduler reads it at each tick). */
  async setEnabled(name: string, enabled: boolean): Promise<ConnectorSummary> {
    this.#instance(name);
    await repo.setEnabled(this.#deps.db, name, enabled);
    this.#log.info({ connector: name, enabled }, enabled ? 'connector enabled' : 'connector disabled');
    return this.get(name);
  }

  /** Until when the remote API asked this connector to wait (Retry-After); null: it may run. */
  async throttledUntil(name: string): Promise<Date | null> {
    return (await repo.throttledUntil(this.#deps.db, [name])).get(name) ?? null;
  }

  /**
   * Queues one run now (a worker runs it): asked for by someone (manual), or by a file dropped
   * in a watched folder (file). Not queued when one is already queued or running, or while throttled.
   */
  async runNow(name: string, trigger: 'manual' | 'file' = 'manual'): Promise<RunNowResult> {
    this.#instance(name);
    const until = await this.throttledUntil(name);
    if (until !== null) return { queued: false, job_id: null, throttled_until: until.toISOString() };
    const id = await this.#deps.jobs.send(this.#deps.db, 'connector.run', { name, trigger, scheduledFor: null }, { singletonKey: name });
    return { queued: id !== null, job_id: id };
  }

  /** One cron tick: queues the run of that tick (once across replicas: the job id is the tick's). */
  async tick(name: string, at: Date): Promise<boolean> {
    if (!(await this.isEnabled(name)) || (await this.throttledUntil(name)) !== null) return false;
    const id = await this.#deps.jobs.send(
      this.#deps.db,
      'connector.run',
      { name, trigger: 'schedule', scheduledFor: at.toISOString() },
      { singletonKey: name, id: tickJobId(`connector.run:${name}`, at) },
    );
    return id !== null;
  }

  /** Runs a connector here and now, recorded, under its lock. A failure is recorded and returned as `error`. */
  async execute(input: ExecuteInput): Promise<ExecuteResult> {
    const inst = this.#instance(input.name);
    if (input.trigger === 'schedule' && !(await this.isEnabled(inst.name))) return { status: 'disabled' };
    const locked = await repo.withRunLock(this.#deps.db, inst.name, async (): Promise<ExecuteResult> => {
      // Checked under the lock: a run that just ended throttled is seen.
      const until = await this.throttledUntil(inst.name);
      if (until !== null) return { status: 'throttled', until };
      // Holding the lock, no other run of it is going: a "running" record is a crashed one.
      await repo.failInterrupted(this.#deps.db, inst.name);
      const row = await repo.insertRun(this.#deps.db, {
        connector: inst.name,
        trigger: input.trigger,
        scheduled_for: input.scheduledFor ?? null,
        job_id: input.jobId ?? null,
        attempt: input.attempt ?? 1,
      });
      const log = (input.log ?? this.#log).child({ connector: inst.name, runId: row.id });
      const report = createReport();
      const ctx = this.#context(inst, {
        runId: row.id,
        log,
        report,
        signal: input.signal ?? new AbortController().signal,
        full: input.full === true,
      });
      log.info({ trigger: input.trigger, attempt: row.attempt }, 'connector run started');
      let error: unknown;
      let skipped: string | null = null;
      try {
        // A connector set up before its shop: each run says so, and nothing is retried or
        // dead-lettered for it (creating the shop is what changes the outcome).
        if (inst.definition.needsShop === true && !(await ctx.catalog.shopExists())) {
          skipped = `Shop ${inst.shopPk} (shop_pk) does not exist yet: create it (waybill shops create) or fix the connector's entry; the run was skipped.`;
        } else {
          await inst.definition.run(ctx);
        }
      } catch (e) {
        // Aborted (shutdown, job time-out): not the input's fault, so the job is retried.
        error = input.signal?.aborted === true && !isTransient(e) ? unavailable('The run was interrupted (shutdown or time-out).', e) : e;
      }
      // Throttled is an outcome, not a failure: the job is not retried, the wait is stored.
      const throttle = error instanceof ThrottledError ? error : null;
      if (throttle !== null) error = undefined;
      const outcome = outcomeOf({ error, throttled: throttle !== null, skipped: skipped !== null, counts: report.counts });
      const text =
        skipped ??
        (throttle !== null
          ? throttle.message
          : error === undefined
            ? null
            : isTransient(error)
              ? `${messageOf(error)} (transient: retried)`
              : messageOf(error));
      const done = toRun(
        await repo.finishRun(this.#deps.db, row.id, {
          outcome,
          counts: { ...report.counts },
          error: text,
          feed_pks: [...report.feeds],
          throttled_until: throttle?.until ?? null,
        }),
      );
      metrics.connectorRun(inst.name, done.outcome);
      const summary = { counts: done.counts, feeds: done.feed_pks.length, ms: done.duration_ms };
      if (outcome === 'throttled')
        log.warn({ counts: done.counts, until: done.throttled_until }, 'connector run throttled by the remote API; no run before then');
      else if (outcome === 'skipped') log.warn({ reason: skipped }, 'connector run skipped');
      else if (outcome === 'partial') log.warn(summary, 'connector run partial: some items or files were refused');
      else if (outcome === 'succeeded') log.info(summary, 'connector run succeeded');
      else log[isTransient(error) ? 'warn' : 'error']({ err: error, counts: done.counts }, 'connector run failed');
      return error === undefined ? { status: 'done', run: done } : { status: 'done', run: done, error };
    });
    return locked.locked ? locked.value : { status: 'busy' };
  }

  /** What connector `name` would make of `file` (its first `limit` products and summary), writing nothing. */
  async preview(name: string, file: string, limit: number): Promise<{ products: unknown[]; summary: unknown }> {
    const inst = this.#instance(name);
    if (inst.definition.preview === undefined)
      throw new AppError('connector_no_preview', 400, `Connectors of type ${inst.type} read no files: there is nothing to preview.`);
    return inst.definition.preview(inst.options as never, file, limit);
  }

  /** A pushed request for one of a connector's receivers (POST /connectors/{name}/webhook...). */
  async receive(name: string, receiver: string, request: ReceiverRequest): Promise<ReceiverResponse> {
    const inst = this.#instance(name);
    const handler = inst.definition.receivers?.[receiver];
    if (handler === undefined) throw notFound(`Receiver ${receiver} of connector ${name}`);
    if (!(await this.isEnabled(name)))
      throw new AppError('connector_disabled', 503, `Connector ${name} is disabled; retry later.`, { headers: { 'retry-after': '60' } });
    const report = createReport();
    const log = this.#log.child({ connector: name, receiver });
    const base = this.#context(inst, { runId: 0, log, report, signal: new AbortController().signal, baseUrl: request.baseUrl });
    const { signal: _signal, ...rest } = base;
    const ctx: ReceiverContext = { ...rest, once: (key, fn) => this.#once(name, key, fn) };
    const reply = await handler(request, ctx);
    // A pushed request that did work is a run too: the admin sees its counts and feeds.
    if (reply.status < 300 && (report.feeds.length > 0 || Object.keys(report.counts).length > 0)) {
      const row = await repo.insertRun(this.#deps.db, {
        connector: name,
        trigger: 'webhook',
        scheduled_for: null,
        job_id: null,
        attempt: 1,
      });
      const outcome = outcomeOf({ counts: report.counts });
      await repo.finishRun(this.#deps.db, row.id, { outcome, counts: { ...report.counts }, error: null, feed_pks: [...report.feeds] });
      metrics.connectorRun(name, outcome);
    }
    return reply;
  }

  /** Handles a pushed delivery once per key (its webhook-id), through the shared claim/replay. */
  async #once(connector: string, key: string, fn: () => Promise<ReceiverResponse>): Promise<ReceiverResponse> {
    const { reply, replayed } = await once(
      this.#receipt(connector, key),
      {
        inFlight: () =>
          new AppError('delivery_in_progress', 409, `Delivery ${key} is being handled; retry shortly.`, {
            headers: { 'retry-after': '5' },
          }),
      },
      async () => {
        const r = await fn();
        return { status: r.status, headers: r.headers ?? {}, body: r.body };
      },
    );
    if (!replayed) return reply;
    return { status: reply.status, headers: { ...reply.headers, 'idempotent-replayed': 'true' }, body: reply.body ?? undefined };
  }

  #receipt(connector: string, key: string): ClaimStore<unknown> {
    const db = this.#deps.db;
    return {
      claim: () => repo.claimReceipt(db, connector, key),
      find: async () => {
        const row = await repo.getReceipt(db, connector, key);
        if (row === undefined) return undefined;
        return {
          fingerprint: null,
          reply: row.status === null ? null : { status: row.status, headers: row.headers ?? {}, body: row.body },
        };
      },
      // A receipt leaves only when pruned (prune.receipts): until then its delivery is replayed.
      dropExpired: async () => undefined,
      save: async (reply) => void (await repo.finishReceipt(db, connector, key, reply)),
      release: async () => void (await repo.releaseReceipt(db, connector, key)),
    };
  }

  /** Deletes receipts older than `days` (default RECEIPT_DAYS). */
  async pruneReceipts(days = RECEIPT_DAYS): Promise<number> {
    const r = await repo.pruneReceipts(this.#deps.db, new Date(Date.now() - days * 86_400_000));
    return Number(r[0]?.numDeletedRows ?? 0);
  }

  #context(
    inst: ConnectorInstance,
    run: { runId: number; log: Logger; report: RunReport; signal: AbortSignal; baseUrl?: string; full?: boolean },
  ): ConnectorContext {
    const db = this.#deps.db;
    const name = inst.name;
    const delta: DeltaStore = {
      async changed(shopPk, items) {
        const hashed = items.map((i) => ({ ...i, hash: i.hash ?? contentHash(i.product) }));
        const known = new Map(
          (
            await repo.findHashes(
              db,
              shopPk,
              hashed.map((i) => i.sku),
            )
          ).map((r) => [r.sku, r.hash]),
        );
        return hashed.filter((i) => known.get(i.sku) !== i.hash);
      },
    };
    const processed: ProcessedStore = {
      async seen(key) {
        const r = await repo.findAppliedFile(db, name, key);
        return r === undefined ? null : { label: r.file_name, at: r.done_at.toISOString() };
      },
      remember: async (key, label, feedPks) =>
        void (await repo.upsertFile(db, {
          connector: name,
          sha256: key,
          file_name: label,
          run_id: run.runId === 0 ? null : run.runId,
          feed_pks: feedPks,
        })),
    };
    return {
      name,
      type: inst.type,
      shopPk: inst.shopPk,
      options: inst.options,
      log: run.log,
      signal: run.signal,
      state: {
        get: async <T>(key: string) => (await repo.getState(db, name, key))?.value as T | undefined,
        set: async (key, value) => void (await repo.setState(db, name, key, value)),
      },
      secret(envName) {
        const value = secretFromEnv(envName);
        if (value === undefined) throw userError(`The environment variable ${envName} (a secret of connector ${name}) is not set.`);
        return value;
      },
      ...this.#deps.ports({ name, shopPk: inst.shopPk, baseUrl: run.baseUrl ?? this.#deps.baseUrl }),
      report: run.report,
      delta,
      processed,
      runId: run.runId,
      full: run.full === true,
    };
  }
}
