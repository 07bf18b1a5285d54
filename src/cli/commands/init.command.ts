// waybill init (alias migrate): the one command besides start that may create a database (the
// embedded one in WAYBILL_DATA_DIR when DATABASE_URL is unset); then the application's
// migrations and the job queue's schema. It says which database it acted on.
import { connect, migrate } from '../../db/connect.ts';
import { JobQueue } from '../../jobs/job-queue.ts';
import { embeddedExists, type CliContext } from '../context.ts';

export async function initCommand(ctx: CliContext): Promise<number> {
  const { config } = ctx;
  const created = config.databaseUrl === undefined && !embeddedExists(config.dataDir);
  const connection = await connect(config, ctx.logger, { migrate: false, applicationName: 'waybill-cli' });
  try {
    const report = await migrate(connection.connectionString);
    const queue = new JobQueue({ connectionString: connection.connectionString, logger: ctx.logger, supervise: false, max: 2 });
    await queue.start();
    await queue.stop(1_000);
    const url = config.databaseUrl === undefined ? null : new URL(config.databaseUrl);
    const location = url === null ? config.dataDir : `${url.hostname}:${url.port || '5432'}${url.pathname}`;
    const where =
      url === null ? `${created ? 'Created the embedded database' : 'Embedded database'} in ${location}` : `Database at ${location}`;
    const what = report.applied.length === 0 ? `up to date (${report.latest ?? 'no migrations'})` : `applied ${report.applied.join(', ')}`;
    ctx.out.result({ database: connection.mode, location, created, applied: report.applied, latest: report.latest }, `${where}: ${what}.`);
    return 0;
  } finally {
    await connection.close();
  }
}
