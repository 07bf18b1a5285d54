// A product's content hash: sha256 of its canonical JSON (object keys sorted). Connectors'
// delta detection compares it with the hash the feed worker recorded for the (shop, sku).
import { hash } from 'node:crypto';

/** JSON with object keys sorted at every level (undefined members dropped): one text per content. */
export function canonicalJson(value: unknown): string {
  // Most values (a CSV's products, built in sorted field order) are already canonical: then
  // the native JSON.stringify gives the same text, several times faster.
  return isCanonical(value) ? (JSON.stringify(value) ?? 'null') : sortedJson(value);
}

const plainProto = Object.prototype;

/**
 * True when JSON.stringify(value) is the canonical text: plain objects whose keys are already
 * in sorted order, arrays, and JSON primitives only (no undefined in arrays, no toJSON).
 */
function isCanonical(value: unknown): boolean {
  if (value === null) return true;
  const t = typeof value;
  if (t === 'string' || t === 'number' || t === 'boolean') return true;
  if (t !== 'object') return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!isCanonical(value[i])) return false;
    return true;
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== plainProto && proto !== null) return false;
  const o = value as Record<string, unknown>;
  let before: string | null = null;
  for (const k in o) {
    // for-in on a plain object: own keys in Object.keys order (integer-like keys first, which
    // a sorted order may not have; the comparison catches it).
    if (before !== null && !(before < k)) return false;
    const v = o[k];
    if (v !== undefined && !isCanonical(v)) return false;
    before = k;
  }
  return true;
}

function sortedJson(value: unknown): string {
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

/** sha256 hex of a canonicalJson text. */
export const hashOfCanonical = (json: string): string => hash('sha256', json, 'hex');

/** sha256 hex of a product's normalized content. */
export const contentHash = (product: unknown): string => hashOfCanonical(canonicalJson(product));
