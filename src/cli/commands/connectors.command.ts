// waybill connectors list | run <name>: the configured connectors with their last runs; one
// run now, here, under the connector's lock (works whether or not the daemon runs).
import path from 'node:path';
import type { ConnectorRun } from '../../connectors/host/connectors.schemas.ts';
import { isProblemCount } from '../../../connectors/sdk/index.ts';
import type { CliContext } from '../context.ts';
import { CliError, withServices } from '../context.ts';
import { table } from '../output.ts';

const summary = (r: ConnectorRun): string => {
  const counts =
    Object.entries(r.counts)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ') || 'no counts';
  const waits = r.throttled_until === null ? '' : `\nthrottled: no run before ${r.throttled_until}`;
  const refused = Object.entries(r.counts)
    .filter(([k, v]) => isProblemCount(k) && v > 0)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  const partial = r.outcome === 'partial' ? `\npartial: it refused some of its input (${refused}); the reports say what and why` : '';
  const why = r.error === null ? '' : `\n${r.outcome === 'skipped' ? 'skipped' : 'error'}: ${r.error}`;
  return `run ${r.id} of ${r.connector}: ${r.outcome} in ${r.duration_ms ?? '?'} ms; ${counts}; feeds: ${r.feed_pks.join(', ') || 'none'}${why}${partial}${waits}`;
};

export async function connectorsList(ctx: CliContext): Promise<number> {
  const connectors = await withServices(ctx, (s) => s.connectors.list({ lastRuns: 1 }));
  const rows = connectors.map((c) => {
    const last = c.last_runs[0];
    return {
      name: c.name,
      type: c.type,
      shop_pk: c.shop_pk,
      schedule: c.schedule,
      enabled: c.enabled,
      throttled_until: c.throttled_until,
      last_run: last?.started_at ?? null,
      outcome: last?.outcome ?? null,
      error: last?.error?.slice(0, 60) ?? null,
    };
  });
  ctx.out.result(
    { connectors },
    table(rows, ['name', 'type', 'shop_pk', 'schedule', 'enabled', 'throttled_until', 'last_run', 'outcome', 'error']),
  );
  return 0;
}

export async function connectorsRun(ctx: CliContext, [name]: unknown[], options: { full?: boolean } = {}): Promise<number> {
  const result = await withServices(ctx, (s) =>
    s.connectors.execute({ name: name as string, trigger: 'cli', full: options.full === true }),
  );
  if (result.status !== 'done') {
    const throttled = result.status === 'throttled';
    throw new CliError(
      throttled ? 'connector_throttled' : 'connector_busy',
      throttled
        ? `connector ${String(name)} is throttled: its remote API asked to wait (Retry-After) until ${result.until.toISOString()}; not run`
        : `connector ${String(name)} is running elsewhere (the daemon or another command); try again when it ends`,
      1,
    );
  }
  ctx.out.result({ run: result.run }, summary(result.run));
  // Anything but a clean run is worth a script's attention: partial, skipped, failed.
  return result.run.outcome === 'succeeded' ? 0 : 1;
}

/** waybill connectors preview <name> <file>: the first products as they would be sent, and the file's summary; writes nothing. */
export async function connectorsPreview(ctx: CliContext, [name, file]: unknown[], options: { limit?: number }): Promise<number> {
  const limit = options.limit ?? 5;
  const preview = await withServices(ctx, (s) => s.connectors.preview(name as string, path.resolve(file as string), limit));
  ctx.out.result(preview, JSON.stringify(preview, null, 2));
  return 0;
}
