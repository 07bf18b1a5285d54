// The scheduler role's cron: each connector's ticks become connector.run jobs. Every replica
// ticks; the job id derived from (connector, tick) makes the queue keep one job per tick, and
// the exclusive queue policy keeps a tick from doubling a run still going.
import fs from 'node:fs';
import path from 'node:path';
import cron, { type ScheduledTask } from 'node-cron';
import type { Logger } from '../../logger.ts';
import type { ConnectorService } from './connectors.service.ts';

export interface ConnectorScheduler {
  /** Names of the connectors with a schedule. */
  readonly scheduled: string[];
  stop(): Promise<void>;
}

export function startConnectorScheduler(connectors: ConnectorService, logger: Logger): ConnectorScheduler {
  const log = logger.child({ component: 'connector-scheduler' });
  const tasks: ScheduledTask[] = [];
  const pending = new Set<Promise<unknown>>();
  for (const inst of connectors.load()) {
    if (inst.schedule === null) continue;
    const name = inst.name;
    const task = cron.schedule(inst.schedule, ({ date }) => {
      // The tick's own time (node-cron passes the slot, not "now"), so replicas agree on it.
      const p = connectors.tick(name, date).then(
        (queued) => log.debug({ connector: name, tick: date.toISOString(), queued }, 'connector tick'),
        (error: unknown) => log.warn({ err: error, connector: name }, 'connector tick could not be queued; the next tick tries again'),
      );
      pending.add(p);
      void p.finally(() => pending.delete(p));
    }, { name: `connector:${name}`, noOverlap: true, suppressMissedWarning: true });
    tasks.push(task);
  }
  const watchers = watchInboxes(connectors, log);
  // Receipts of pushed deliveries (webhook-id dedupe) are kept 7 days; each replica prunes, harmlessly.
  tasks.push(cron.schedule('17 3 * * *', () => {
    connectors.pruneReceipts().then(
      (n) => log.info({ deleted: n }, 'old connector receipts pruned'),
      (error: unknown) => log.warn({ err: error }, 'connector receipts could not be pruned'),
    );
  }, { name: 'connectors:prune-receipts', noOverlap: true }));
  const scheduled = tasks.flatMap((t) => (t.name?.startsWith('connector:') === true ? [t.name.slice('connector:'.length)] : []));
  log.info({ connectors: scheduled }, 'connector scheduler started');
  return {
    scheduled,
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
