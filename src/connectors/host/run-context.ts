// Pieces of a connector's context and summary that hold no rules: the run report, receiver paths.
import type { RunReport } from '../../../connectors/sdk/index.ts';

export function createReport(): RunReport {
  const counts: Record<string, number> = {};
  const feeds: string[] = [];
  return {
    count(name, n = 1) {
      counts[name] = (counts[name] ?? 0) + n;
    },
    feed(feedPk) {
      feeds.push(String(feedPk));
    },
    counts,
    feeds,
  };
}

/** The paths a connector's receivers answer on (POST). */
export const receiverPaths = (name: string, receivers: string[]): string[] =>
  receivers.map((r) => (r === 'webhook' ? `/connectors/${name}/webhook` : r === 'carrier-webhook' ? `/webhooks/carriers/${name}/` : `/connectors/${name}/${r}`));
