// The scheduler role's cron (node-cron), the one scheduler of everything periodic: each
// connector's ticks become connector.run jobs, each maintenance job's ticks (maintenanceSchedules
// in job-map.ts) its job. Every replica ticks; the job id derived from (job, tick) makes the
// queue keep one job per tick, and the exclusive queue policy keeps a connector tick from
// doubling a run still going. A reload of the connectors file reschedules the connectors.
import cron, { type ScheduledTask } from 'node-cron';
import type { Executor } from '../db/database.ts';
import { maintenanceSchedules, type JobName, type JobSender } from '../jobs/job-map.ts';
import { tickJobId } from '../jobs/tick-id.ts';
import type { Logger } from '../logger.ts';
import type { ConnectorService } from '../connectors/host/connectors.service.ts';

export interface SchedulerDeps {
  /** The connectors to tick, and the reloads that change them. */
  connectors: Pick<ConnectorService, 'load' | 'tick' | 'onReload'>;
  jobs: JobSender;
  db: Executor;
  logger: Logger;
}

export interface Scheduler {
  /** Names of the connectors with a schedule (as of the last reload). */
  readonly connectors: string[];
  /** The maintenance jobs ticked. */
  readonly maintenance: JobName[];
  stop(): Promise<void>;
}

/** Queues a maintenance job for one tick; false when a replica queued it already. */
export async function queueMaintenanceTick(
  { jobs, db }: Pick<SchedulerDeps, 'jobs' | 'db'>,
  name: keyof typeof maintenanceSchedules,
  at: Date,
): Promise<boolean> {
  return (await jobs.send(db, name, {}, { id: tickJobId(name, at) })) !== null;
}

export function startScheduler(deps: SchedulerDeps): Scheduler {
  const { connectors } = deps;
  const log = deps.logger.child({ component: 'scheduler' });
  const pending = new Set<Promise<unknown>>();
  const every = (expression: string, name: string, tick: (at: Date) => Promise<boolean>): ScheduledTask =>
    cron.schedule(
      expression,
      ({ date }) => {
        // The tick's own time (node-cron passes the slot, not "now"), so replicas agree on it.
        const p = tick(date).then(
          (queued) => log.debug({ job: name, tick: date.toISOString(), queued }, 'tick'),
          (error: unknown) => log.warn({ err: error, job: name }, 'tick could not be queued; the next tick tries again'),
        );
        pending.add(p);
        void p.finally(() => pending.delete(p));
      },
      { name, noOverlap: true, suppressMissedWarning: true },
    );

  let connectorTasks: ScheduledTask[] = [];
  const scheduled: string[] = [];
  const scheduleConnectors = (): void => {
    for (const t of connectorTasks) void t.destroy();
    connectorTasks = [];
    scheduled.length = 0;
    for (const inst of connectors.load()) {
      if (inst.schedule === null) continue;
      connectorTasks.push(every(inst.schedule, `connector:${inst.name}`, (at) => connectors.tick(inst.name, at)));
      scheduled.push(inst.name);
    }
  };
  scheduleConnectors();
  const stopReloads = connectors.onReload(() => {
    scheduleConnectors();
    log.info({ connectors: [...scheduled] }, 'connectors rescheduled');
  });
  const maintenance = Object.keys(maintenanceSchedules) as (keyof typeof maintenanceSchedules)[];
  const maintenanceTasks = maintenance.map((name) => every(maintenanceSchedules[name], name, (at) => queueMaintenanceTick(deps, name, at)));
  log.info({ connectors: [...scheduled], maintenance }, 'scheduler started');
  return {
    connectors: scheduled,
    maintenance,
    async stop() {
      stopReloads();
      for (const t of [...connectorTasks, ...maintenanceTasks]) await t.destroy();
      await Promise.allSettled([...pending]);
    },
  };
}
