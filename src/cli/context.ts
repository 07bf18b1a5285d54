// What a CLI command gets: config, a quiet logger (stderr), and services over the database
// (the daemon's embedded one when it runs, else started for the command and stopped after).
import type { Config } from '../config.ts';
import { connect } from '../db/connect.ts';
import type { JobSender } from '../jobs/job-map.ts';
import { JobQueue } from '../jobs/job-queue.ts';
import type { Logger } from '../logger.ts';
import { createServices, type Services } from '../services.ts';
import type { Output } from './output.ts';

export interface CliContext {
  config: Config;
  logger: Logger;
  out: Output;
}

/** Runs fn with services; jobs are sent through a queue that is started only if fn sends one. */
export async function withServices<T>(ctx: CliContext, fn: (services: Services) => Promise<T>): Promise<T> {
  const connection = await connect(ctx.config, ctx.logger, { applicationName: 'waybill-cli' });
  let queue: JobQueue | null = null;
  let starting: Promise<JobQueue> | null = null;
  // Memoized: two sends at once start one queue.
  const started = (): Promise<JobQueue> => (starting ??= (async () => {
    queue = new JobQueue({ connectionString: connection.connectionString, logger: ctx.logger, supervise: false, max: 2 });
    await queue.start();
    return queue;
  })());
  const lazyJobs: JobSender & { ready(): Promise<boolean> } = {
    send: async (db, name, data, options) => (await started()).send(db, name, data, options),
    sendMany: async (db, name, data) => (await started()).sendMany(db, name, data),
    ready: async () => true,
  };
  try {
    return await fn(createServices({ db: connection.db, jobs: lazyJobs, config: ctx.config, logger: ctx.logger }));
  } finally {
    await (queue as JobQueue | null)?.stop(5_000);
    await connection.close();
  }
}
