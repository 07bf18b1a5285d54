// Pieces of a connector's context that hold no rules: the run report and the tick's job id.
import { createHash } from 'node:crypto';
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

/**
 * A deterministic UUID for one cron tick of one scheduled job (`connector.run:<name>`,
 * `prune.feeds`...): every replica sends the same job id for the same tick, and the queue keeps
 * the first (insert ... on conflict do nothing).
 */
export function tickJobId(job: string, tick: Date): string {
  const at = new Date(Math.floor(tick.getTime() / 1000) * 1000).toISOString();
  const h = createHash('sha256').update(`${job}@${at}`).digest('hex');
  // Version 8 (custom) and the RFC 4122 variant bits, so it is a well-formed UUID.
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${((parseInt(h.slice(16, 18), 16) & 0x3f) | 0x80).toString(16)}${h.slice(18, 20)}-${h.slice(20, 32)}`;
}
