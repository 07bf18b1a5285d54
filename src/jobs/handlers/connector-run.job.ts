// connector.run: one run of a connector, recorded by the connector service. A failure is
// rethrown so the queue retries it when transient (database away, network) and dead-letters
// it otherwise (a user error: retrying cannot fix a bad option).
import type { ConnectorService } from '../../connectors/host/connectors.service.ts';
import type { JobHandler } from '../job-map.ts';

export const connectorRun =
  (connectors: Pick<ConnectorService, 'execute'>): JobHandler<'connector.run'> =>
  async (data, ctx) => {
    const result = await connectors.execute({
      name: data.name,
      trigger: data.trigger,
      scheduledFor: data.scheduledFor === null ? null : new Date(data.scheduledFor),
      jobId: ctx.jobId,
      attempt: ctx.retryCount + 1,
      signal: ctx.signal,
      log: ctx.log,
    });
    if (result.status === 'busy') ctx.log.info({ connector: data.name }, 'connector already running elsewhere: this run is skipped');
    if (result.status === 'throttled')
      ctx.log.info(
        { connector: data.name, until: result.until.toISOString() },
        'connector throttled by the remote API: this run is skipped',
      );
    if (result.status === 'done' && result.error !== undefined) throw result.error;
  };
