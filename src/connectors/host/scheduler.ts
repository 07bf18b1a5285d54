// The scheduler role's cron (node-cron), the one scheduler of everything periodic: each
// connector's ticks become connector.run jobs, each maintenance job's ticks (maintenanceSchedules
// in job-map.ts) its job. Every replica ticks; the job id derived from (job, tick) makes the
// queue keep one job per tick, and the exclusive queue policy keeps a connector tick from
// doubling a run still going.
import fs from 'node:fs';
import path from 'node:path';
import cron, { type ScheduledTask } from 'node-cron';
import type { Executor } from '../../db/database.ts';
import { maintenanceSchedules, type JobName, type JobSender } from '../../jobs/job-map.ts';
import type { Logger } from '../../logger.ts';
import type { ConnectorService } from './connectors.service.ts';
import { tickJobId } from './run-context.ts';

export interface SchedulerDeps {
  connectors: ConnectorService;
  jobs: JobSender;
  db: Executor;
  logger: Logger;
}

export interface Scheduler {
  /** Names of the connectors with a schedule. */
  readonly connectors: string[];
  /** The maintenance jobs ticked. */
  readonly maintenance: JobName[];
  stop(): Promise<void>;
}

/** Queues a maintenance job for one tick; false when a replica queued it already. */
export async function queueMaintenanceTick({ jobs, db }: Pick<SchedulerDeps, 'jobs' | 'db'>, name: keyof typeof maintenanceSchedules, at: Date): Promise<boolean> {
  return (await jobs.send(db, name, {}, { id: tickJobId(name, at) })) !== null;
}

export function startScheduler(deps: SchedulerDeps): Scheduler {
  const { connectors } = deps;
  const log = deps.logger.child({ component: 'scheduler' });
  const tasks: ScheduledTask[] = [];
  const pending = new Set<Promise<unknown>>();
  const every = (expression: string, name: string, tick: (at: Date) => Promise<boolean>): void => {
    tasks.push(cron.schedule(expression, ({ date }) => {
      // The tick's own time (node-cron passes the slot, not "now"), so replicas agree on it.
      const p = tick(date).then(
        (queued) => log.debug({ job: name, tick: date.toISOString(), queued }, 'tick'),
        (error: unknown) => log.warn({ err: error, job: name }, 'tick could not be queued; the next tick tries again'),
      );
      pending.add(p);
      void p.finally(() => pending.delete(p));
    }, { name, noOverlap: true, suppressMissedWarning: true }));
  };
  const scheduled: string[] = [];
  for (const inst of connectors.load()) {
    if (inst.schedule === null) continue;
    every(inst.schedule, `connector:${inst.name}`, (at) => connectors.tick(inst.name, at));
    scheduled.push(inst.name);
  }
  const maintenance = Object.keys(maintenanceSchedules) as (keyof typeof maintenanceSchedules)[];
  for (const name of maintenance) every(maintenanceSchedules[name], name, (at) => queueMaintenanceTick(deps, name, at));
  const watchers = watchInboxes(connectors, log);
  log.info({ connectors: scheduled, maintenance }, 'scheduler started');
  return {
    connectors: scheduled,
    maintenance,
    async stop() {
      for (const w of watchers) w.close();
      for (const t of tasks) await t.destroy();
      await Promise.allSettled([...pending]);
    },
  };
}

/** How long file events settle before a run is asked for, ms (a copy fires many events). */
const WATCH_DEBOUNCE_MS = 100;

/**
 * Watches the folders connectors name (watchPaths) and queues a run when something changes in
 * them. Events are a speed-up only: correctness rests on the scheduled runs.
 */
function watchInboxes(connectors: ConnectorService, log: Logger): fs.FSWatcher[] {
  const watchers: fs.FSWatcher[] = [];
  for (const inst of connectors.load()) {
    for (const dir of inst.definition.watchPaths?.(inst.options) ?? []) {
      let timer: NodeJS.Timeout | null = null;
      const fire = (): void => {
        timer = null;
        connectors.isEnabled(inst.name)
          .then((enabled) => (enabled ? connectors.runNow(inst.name) : null))
          .then((r) => r !== null && log.debug({ connector: inst.name, queued: r.queued }, 'inbox changed: run queued'))
          .catch((error: unknown) => log.warn({ err: error, connector: inst.name }, 'inbox changed, but no run could be queued'));
      };
      try {
        const w = fs.watch(dir, { persistent: false }, (_event, file) => {
          // Hidden names are temporary files and our own .processing/.done/.error moves.
          if (typeof file === 'string' && file.startsWith('.')) return;
          // A file moved out (to .processing/) fires too: only arrivals matter.
          if (typeof file === 'string' && !fs.existsSync(path.join(dir, file))) return;
          if (timer !== null) clearTimeout(timer);
          timer = setTimeout(fire, WATCH_DEBOUNCE_MS);
          timer.unref();
        });
        w.on('error', (error) => log.warn({ err: error, connector: inst.name, dir }, 'inbox watch stopped; scheduled runs go on'));
        watchers.push(w);
      } catch (error) {
        log.warn({ err: error, connector: inst.name, dir }, 'inbox cannot be watched; scheduled runs go on');
      }
    }
  }
  return watchers;
}
