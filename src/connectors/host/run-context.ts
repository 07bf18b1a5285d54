// A piece of a connector's context that holds no rules: the run report.
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
