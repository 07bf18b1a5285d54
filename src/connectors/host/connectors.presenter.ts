// How runs and entries read to the admin API, the dashboard and the CLI, and how a run's
// outcome follows from how it ended (pure: tested through the runs it records).
import { isProblemCount } from '../../../connectors/sdk/index.ts';
import type * as repo from './connectors.repository.ts';
import type { ConnectorRun, RunOutcome } from './connectors.schemas.ts';

type RunRow = Awaited<ReturnType<typeof repo.listRuns>>[number];

export const toRun = (r: RunRow): ConnectorRun => ({
  id: r.id,
  connector: r.connector,
  trigger: r.trigger,
  scheduled_for: r.scheduled_for?.toISOString() ?? null,
  attempt: r.attempt,
  started_at: r.started_at.toISOString(),
  finished_at: r.finished_at?.toISOString() ?? null,
  duration_ms: r.finished_at === null ? null : r.finished_at.getTime() - r.started_at.getTime(),
  outcome: r.outcome as ConnectorRun['outcome'],
  counts: r.counts,
  error: r.error,
  feed_pks: r.feed_pks,
  throttled_until: r.throttled_until?.toISOString() ?? null,
});

/** Option names whose values must not be shown (a header or option holding a secret by mistake); `*_env` only names a variable. */
const SECRET_OPTION = /(token|secret|password|passwd|authorization|api[-_]?key|cookie)$/i;

/** The options as the admin and the CLI show them: a value under a secret-looking name is redacted, at any depth. */
export const shownOptions = (value: unknown, name = ''): unknown => {
  if (name !== '' && !name.endsWith('_env') && SECRET_OPTION.test(name)) return '[redacted]';
  if (Array.isArray(value)) return value.map((v) => shownOptions(v));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shownOptions(v, k)]));
};

/** How a run ended: failed (it threw), throttled, skipped, partial (a problem count above 0), else succeeded. */
export function outcomeOf(r: {
  error?: unknown;
  throttled?: boolean;
  skipped?: boolean;
  counts: Readonly<Record<string, number>>;
}): Exclude<RunOutcome, 'running'> {
  if (r.error !== undefined) return 'failed';
  if (r.throttled === true) return 'throttled';
  if (r.skipped === true) return 'skipped';
  return Object.entries(r.counts).some(([name, n]) => isProblemCount(name) && n > 0) ? 'partial' : 'succeeded';
}
