// Pieces of a connector's context that hold no rules: the run report and content hashing.
import { createHash } from 'node:crypto';
import type { RunReport } from './contract.ts';

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

/** JSON with object keys sorted at every level (undefined members dropped): one text per content. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/** sha256 hex of a product's normalized content. */
export const contentHash = (product: unknown): string => createHash('sha256').update(canonicalJson(product)).digest('hex');

/**
 * A deterministic UUID for one cron tick of one connector: every replica sends the same job
 * id for the same tick, and the queue keeps the first (insert ... on conflict do nothing).
 */
export function tickJobId(connector: string, tick: Date): string {
  const at = new Date(Math.floor(tick.getTime() / 1000) * 1000).toISOString();
  const h = createHash('sha256').update(`connector.run:${connector}@${at}`).digest('hex');
  // Version 8 (custom) and the RFC 4122 variant bits, so it is a well-formed UUID.
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${((parseInt(h.slice(16, 18), 16) & 0x3f) | 0x80).toString(16)}${h.slice(18, 20)}-${h.slice(20, 32)}`;
}
