import { Type } from 'typebox';

// The one rule for timestamps a client sends, in bodies and query strings alike: the document's
// form YYYY-MM-DDThh:mm:ss (UTC), a real calendar date and time, year 0001-9999 (Postgres and
// JavaScript hold every such instant; year 0000 does not exist in Postgres). Both may add a zone
// (Z, +hh:mm) and fractions of a second (format `timestamp-zone`); a body's zoned timestamp is
// stored in the document's form, in UTC. Replies carry that form only (formatTimestamp).

const WALL = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})$/;
const ZONED = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|z|[+-]\d{2}:?\d{2})?$/;

const leap = (year: number): boolean => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const daysIn = (year: number, month: number): number => (month === 2 && leap(year) ? 29 : DAYS[month - 1]!);

/** The instant `text` names under the rule, or undefined when it breaks it. `zone`: a zone and fractions are allowed. */
export function parseTimestamp(text: string, zone = false): Date | undefined {
  const m = (zone ? ZONED : WALL).exec(text);
  if (m === null) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || second > 59)
    return undefined;
  const offset = m[8];
  if (offset !== undefined && !/^[Zz]$/.test(offset)) {
    const [, h = '0', mm = '0'] = /^[+-](\d{2}):?(\d{2})$/.exec(offset) ?? [];
    if (Number(h) > 23 || Number(mm) > 59) return undefined;
  }
  const iso = `${m.slice(1, 4).join('-')}T${m.slice(4, 7).join(':')}${m[7] ?? ''}${offset === undefined || /^[Zz]$/.test(offset) ? 'Z' : offset}`;
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? undefined : at;
}

/** Ajv formats of the rule: `timestamp` (bodies: the document's form) and `timestamp-zone` (query strings). */
export const timestampFormats = {
  timestamp: (text: string): boolean => parseTimestamp(text) !== undefined,
  'timestamp-zone': (text: string): boolean => parseTimestamp(text, true) !== undefined,
};

export const TIMESTAMP_MESSAGE = 'must be a timestamp YYYY-MM-DDThh:mm:ss (a real date, years 0001-9999)';
export const ZONED_TIMESTAMP_MESSAGE = `${TIMESTAMP_MESSAGE}, optionally with a zone (Z, +01:00)`;

/**
 * The one form of timestamps in the marketplace API's replies: the document's YYYY-MM-DDThh:mm:ss,
 * UTC, whole seconds (every route's reply goes through this; the admin API keeps full ISO 8601).
 */
export const formatTimestamp = (at: Date): string => at.toISOString().slice(0, 19);

/** `formatTimestamp` of a nullable instant. */
export const formatNullableTimestamp = (at: Date | null | undefined): string | null =>
  at === null || at === undefined ? null : formatTimestamp(at);

const REPLY_FORM = 'YYYY-MM-DDThh:mm:ss, UTC';
/** A timestamp in a marketplace API reply (formatTimestamp); `what` adds to its description. */
export const replyTimestamp = (what?: string) =>
  Type.String({
    pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}$',
    description: what === undefined ? REPLY_FORM : `${REPLY_FORM}: ${what}`,
    examples: ['2026-11-21T12:00:00'],
  });
export const ReplyTimestamp = replyTimestamp();
