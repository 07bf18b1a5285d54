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
  const lazyJobs: JobSender & { ready(): Promise<boolean> } = {
    async send(db, name, data, options) {
      if (queue === null) {
        queue = new JobQueue({ connectionString: connection.connectionString, logger: ctx.logger, supervise: false, max: 2 });
        await queue.start();
      }
      return queue.send(db, name, data, options);
    },
    ready: async () => true,
  };
  try {
    return await fn(createServices({ db: connection.db, jobs: lazyJobs, config: ctx.config, logger: ctx.logger }));
  } finally {
    await (queue as JobQueue | null)?.stop(5_000);
    await connection.close();
  }
}
