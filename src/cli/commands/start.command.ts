// waybill start [--role all|api|worker|scheduler] [--log-format auto|pretty|json]: the daemon,
// until SIGTERM/SIGINT; SIGHUP reads the connectors file again.
import { ConfigError } from '../../config.ts';
import { createLogger } from '../../logger.ts';
import { LogSink } from '../../logs/log-sink.ts';
import { startDaemon, type Daemon, type Role } from '../../main.ts';
import type { CliContext } from '../context.ts';

export async function startCommand(ctx: CliContext, _args: unknown[], options: { role?: string }): Promise<number> {
  // commander has checked it against roles.
  const role = (options.role ?? 'all') as Role;
  // The same JSON lines go to stdout and, in batches, to the database (the dashboard's Logs page).
  const logs = new LogSink();
  const logger = createLogger({ level: ctx.config.logLevel, format: ctx.config.logFormat, streams: [{ level: 'trace', stream: logs }] });
  ctx = { ...ctx, logger };
  // Signals are heard from the start: one that arrives while the daemon starts (it already
  // answers /healthz before its last start-up steps) stops it once started, instead of
  // killing the process on the spot.
  let stopping: { signal: NodeJS.Signals; at: number } | null = null;
  let stop: ((signal: NodeJS.Signals) => void) | null = null;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopping !== null) {
      // Ctrl-C under `npm start` arrives twice at once: from the terminal (the whole process
      // group) and forwarded by npm. Only a signal sent after that is the user's second one.
      if (signal === stopping.signal && Date.now() - stopping.at < 1_000) return;
      ctx.logger.warn({ signal }, 'second signal: exiting now');
      process.exit(130);
    }
    stopping = { signal, at: Date.now() };
    stop?.(signal);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  // SIGHUP: the connectors file again (heard from the start: while starting, the file is being read anyway).
  // A bad file changes nothing; its problems are logged, all at once.
  let running: Daemon | null = null;
  process.on('SIGHUP', () => {
    if (running === null) return void logger.info('SIGHUP while starting: the connectors file is read as the daemon starts');
    try {
      running.reloadConnectors();
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      logger.error(
        { problems: error.problems },
        `connectors file not reloaded; the connectors read before keep running: ${error.problems.join('; ')}`,
      );
    }
  });
  const daemon = await startDaemon({ config: ctx.config, logger, role, logs });
  running = daemon;
  return new Promise<number>((resolve) => {
    stop = (signal) => {
      ctx.logger.info({ signal }, 'shutting down: finishing requests and running jobs');
      const force = setTimeout(() => {
        ctx.logger.error({ timeoutMs: ctx.config.shutdownTimeoutMs }, 'shutdown took too long: exiting');
        process.exit(1);
      }, ctx.config.shutdownTimeoutMs + 5_000);
      force.unref();
      daemon.stop().then(
        () => ctx.logger.flush(() => resolve(0)),
        (error: unknown) => {
          ctx.logger.error({ err: error }, 'shutdown failed');
          resolve(1);
        },
      );
    };
    const early: { signal: NodeJS.Signals } | null = stopping;
    if (early !== null) stop(early.signal);
  });
}
