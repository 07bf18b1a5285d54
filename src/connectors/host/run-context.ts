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
  // Plain loops and += (no intermediate arrays): this runs once per product of every file.
  if (Array.isArray(value)) {
    let s = '[';
    for (let i = 0; i < value.length; i++) s += (i === 0 ? '' : ',') + canonicalJson(value[i]);
    return `${s}]`;
  }
  const o = value as Record<string, unknown>;
  let s = '{';
  let first = true;
  for (const k of Object.keys(o).sort()) {
    const v = o[k];
    if (v === undefined) continue;
    s += `${first ? '' : ','}${JSON.stringify(k)}:${canonicalJson(v)}`;
    first = false;
  }
  return `${s}}`;
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
