// Watches the folders connectors name (watchPaths: catalog-file's inbox) and queues a run,
// labelled `file`, when something arrives in one. Events are a speed-up only: correctness rests
// on the scheduled runs. A reload of the connectors file watches the new set of folders.
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../logger.ts';
import type { ConnectorService } from './connectors.service.ts';

/** How long file events settle before a run is asked for, ms (a copy fires many events). */
const WATCH_DEBOUNCE_MS = 100;

export function watchInboxes(
  connectors: Pick<ConnectorService, 'load' | 'isEnabled' | 'runNow' | 'onReload'>,
  logger: Logger,
): { stop(): void } {
  const log = logger.child({ component: 'inbox-watch' });
  let watchers: fs.FSWatcher[] = [];
  const watchAll = (): void => {
    for (const w of watchers) w.close();
    watchers = [];
    for (const inst of connectors.load()) {
      for (const dir of inst.definition.watchPaths?.(inst.options) ?? []) {
        let timer: NodeJS.Timeout | null = null;
        const fire = (): void => {
          timer = null;
          connectors
            .isEnabled(inst.name)
            .then((enabled) => (enabled ? connectors.runNow(inst.name, 'file') : null))
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
  };
  watchAll();
  const stopReloads = connectors.onReload(watchAll);
  return {
    stop() {
      stopReloads();
      for (const w of watchers) w.close();
    },
  };
}
