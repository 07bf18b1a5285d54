// tracking-http: where a generic carrier API keeps its status and events (JSON paths from the
// options) and what its codes mean (the options' status_map) -> the normalized model.
import {
  TRACKING_STATUSES,
  type TrackingEvent,
  type TrackingResult,
  type TrackingStatus,
  carrierTime,
  resultOf,
  textOf,
} from '../sdk/index.ts';

/**
 * A value at a JSON path: dots between keys, array indexes as `.0` or `[0]`, an optional
 * leading `$`. "data.shipments[0].status.code". undefined when any step is missing.
 */
export function atPath(value: unknown, path: string): unknown {
  const steps = path
    .replace(/^\$\.?/, '')
    .replace(/\[(\d+)\]/g, '.$1')
    .split('.')
    .filter((s) => s !== '');
  let v = value;
  for (const step of steps) {
    if (v === null || typeof v !== 'object') return undefined;
    v = Array.isArray(v) ? v[Number(step)] : (v as Record<string, unknown>)[step];
  }
  return v;
}

export interface HttpMapping {
  status_path: string;
  events_path?: string;
  event_fields: { time: string; code: string; text?: string; location?: string };
  /** Carrier code -> normalized status; matched exactly, then case-insensitively. */
  status_map: Record<string, string>;
  /** Codes meaning a failure the carrier will not recover from (lost...). */
  final_failure_codes: string[];
}

const isStatus = (s: string): s is TrackingStatus => (TRACKING_STATUSES as readonly string[]).includes(s);

export function statusOf(code: string | null, map: Record<string, string>): TrackingStatus {
  if (code === null) return 'unknown';
  const hit = map[code] ?? Object.entries(map).find(([k]) => k.toLowerCase() === code.toLowerCase())?.[1];
  return hit !== undefined && isStatus(hit) ? hit : 'unknown';
}

const codeText = (v: unknown): string | null => (typeof v === 'number' ? String(v) : textOf(v));

export function mapHttpResponse(body: unknown, m: HttpMapping): TrackingResult {
  const code = codeText(atPath(body, m.status_path));
  const raw = m.events_path === undefined ? [] : atPath(body, m.events_path);
  const events: TrackingEvent[] = [];
  for (const e of Array.isArray(raw) ? raw : []) {
    const at = carrierTime(atPath(e, m.event_fields.time));
    if (at === null) continue;
    const c = codeText(atPath(e, m.event_fields.code));
    events.push({
      occurredAt: at,
      status: statusOf(c, m.status_map),
      carrierCode: c,
      carrierText: m.event_fields.text === undefined ? null : textOf(atPath(e, m.event_fields.text)),
      location: m.event_fields.location === undefined ? null : textOf(atPath(e, m.event_fields.location)),
    });
  }
  const final = code !== null && m.final_failure_codes.some((f) => f.toLowerCase() === code.toLowerCase());
  return resultOf(statusOf(code, m.status_map), code, final, events);
}
