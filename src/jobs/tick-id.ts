// The job id of one cron tick: how a tick queued by every scheduler replica runs once.
import { createHash } from 'node:crypto';

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
