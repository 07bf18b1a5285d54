// waybill migrate: the application's migrations and the job queue's schema.
import { connect, migrate } from '../../db/connect.ts';
import { JobQueue } from '../../jobs/job-queue.ts';
import type { CliContext } from '../context.ts';

export async function migrateCommand(ctx: CliContext): Promise<number> {
  const connection = await connect(ctx.config, ctx.logger, { migrate: false, applicationName: 'waybill-cli' });
  try {
    const report = await migrate(connection.connectionString);
    const queue = new JobQueue({ connectionString: connection.connectionString, logger: ctx.logger, supervise: false, max: 2 });
    await queue.start();
    await queue.stop(1_000);
    ctx.out.result(
      { applied: report.applied, latest: report.latest, database: connection.mode },
      report.applied.length === 0 ? `Database is up to date (${report.latest ?? 'no migrations'}).` : `Applied: ${report.applied.join(', ')}`,
    );
    return 0;
  } finally {
    await connection.close();
  }
}
