// A small schema-driven generator for the API fuzzer: valid values of a JSON schema (as the
// OpenAPI document publishes them) and hostile mutations of them. Deterministic per seed, so
// a failing request can be rebuilt from its number.
import fc from 'fast-check';

export type Rng = () => number;

/** mulberry32: a tiny seeded PRNG; enough for picking cases, not for secrets. */
export function rngOf(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const int = (r: Rng, min: number, max: number): number => min + Math.floor(r() * (max - min + 1));
export const pick = <T>(r: Rng, list: readonly T[]): T => list[Math.floor(r() * list.length)]!;
export const chance = (r: Rng, p: number): boolean => r() < p;

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  format?: string;
  default?: unknown;
}

/** Strings that have broken parsers, SQL and templates elsewhere. Every one is valid JSON text. */
export const HOSTILE_STRINGS = [
  "'; drop table products; --",
  '" or 1=1 --',
  '\\',
  "\\\\'",
  '$1',
  '$$',
  '%s%n',
  '{{7*7}}',
  '${jndi:x}',
  '<script>alert(1)</script>',
  '../../etc/passwd',
  '..%2f..%2f',
  'Ω≈ç√∫',
  '𝕏💥🏳️‍🌈',
  '\u202e\u200b\ufeff',
  'a\nb\r\nc\t',
  ' ',
  '',
  'null',
  'NaN',
  '9'.repeat(40),
  '-0',
  '1e400',
  '2026-02-30T00:00:00',
  '0000-00-00T00:00:00',
  '9999-12-31T23:59:59',
  'x'.repeat(70_000),
];

/** Values of every JSON type, and edge numbers, to put where something else belongs. */
export const GARBAGE: unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  -0.0001,
  2 ** 31,
  2 ** 53 + 2,
  9.999e307,
  -9.999e307,
  1e-320,
  9223372036854775808,
  '',
  'x',
  '1',
  [],
  [null],
  [[[[[[[]]]]]]],
  {},
  { pk: 1 },
  { '': 1 },
  JSON.parse('{"__proto__":{"x":1},"constructor":{"prototype":1}}'),
  ...HOSTILE_STRINGS,
];

const fcSample = (r: Rng): unknown => fc.sample(fc.jsonValue({ maxDepth: 3 }), { numRuns: 1, seed: int(r, 0, 2 ** 31 - 1) })[0];

/** A string for a known pattern of the API, or undefined for a pattern we have no recipe for. */
function forPattern(r: Rng, pattern: string): string | undefined {
  if (pattern.includes('\\d{4}-\\d{2}-\\d{2}T')) {
    return `20${int(r, 10, 40)}-${String(int(r, 1, 12)).padStart(2, '0')}-${String(int(r, 1, 28)).padStart(2, '0')}T${String(int(r, 0, 23)).padStart(2, '0')}:${String(int(r, 0, 59)).padStart(2, '0')}:00`;
  }
  if (pattern.startsWith('^\\d{1,10}')) return pick(r, ['0', '21', '21.00', '7.5', '1234567890.123456']);
  if (pattern.startsWith('^https?://')) return `https://img.example.com/${int(r, 1, 50)}.jpg`;
  if (pattern.startsWith('^[a-z0-9]')) return pick(r, ['pim', 'erp-main', 'nope']);
  if (pattern.startsWith('^[A-Za-z_]')) return 'FUZZ_ENV';
  return undefined;
}

/** Free text within the bounds, sometimes with hostile characters (valid strings all the same). */
function text(r: Rng, min: number, max: number): string {
  const base = chance(r, 0.3)
    ? pick(
        r,
        HOSTILE_STRINGS.filter((s) => s.length <= 200),
      )
    : `fz-${int(r, 0, 40)}`;
  let s = base.length >= min ? base : base.padEnd(min, 'z');
  if (s.length > max) s = s.slice(0, max);
  if (s.length < min) s = 'z'.repeat(min);
  return s;
}

/** A valid value of `schema` (required members always, optional ones half the time). */
export function validOf(schema: JsonSchema | undefined, r: Rng, depth = 0): unknown {
  if (schema === undefined) return {};
  if (schema.const !== undefined) return schema.const;
  if (schema.enum !== undefined) return pick(r, schema.enum);
  const alts = schema.anyOf ?? schema.oneOf;
  if (alts !== undefined) return validOf(pick(r, alts), r, depth);
  if (schema.allOf !== undefined) return Object.assign({}, ...schema.allOf.map((s) => validOf(s, r, depth) as object));
  const types = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? ['object'] : [schema.type];
  const type = types.length > 1 && chance(r, 0.15) ? pick(r, types) : (types.find((t) => t !== 'null') ?? 'null');
  switch (type) {
    case 'null':
      return null;
    case 'boolean':
      return chance(r, 0.5);
    case 'integer': {
      const min = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : 0);
      const max = schema.maximum ?? min + 1000;
      return int(r, min, Math.min(max, min + 1000));
    }
    case 'number': {
      const min = schema.minimum ?? 0;
      const max = schema.maximum ?? min + 10_000;
      return Math.round((min + r() * (Math.min(max, min + 10_000) - min)) * 100) / 100;
    }
    case 'string': {
      if (schema.pattern !== undefined) return forPattern(r, schema.pattern) ?? text(r, schema.minLength ?? 1, schema.maxLength ?? 50);
      return text(r, schema.minLength ?? 0, schema.maxLength ?? 200);
    }
    case 'array': {
      const min = schema.minItems ?? 0;
      const n = depth > 2 ? min : int(r, min, Math.max(min, Math.min(schema.maxItems ?? 3, 3)));
      return Array.from({ length: n }, () => validOf(schema.items, r, depth + 1));
    }
    default: {
      const out: Record<string, unknown> = {};
      const required = new Set(schema.required ?? []);
      for (const [name, prop] of Object.entries(schema.properties ?? {})) {
        if (required.has(name) || (depth < 3 && chance(r, 0.5))) out[name] = validOf(prop, r, depth + 1);
      }
      return out;
    }
  }
}

/** Paths to every member of a JSON value (for picking one to break). */
function members(value: unknown, at: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  if (at.length > 0) out.push(at);
  if (Array.isArray(value)) value.forEach((v, i) => members(v, [...at, i], out));
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) members(v, [...at, k], out);
  return out;
}

function setAt(root: unknown, path: (string | number)[], value: unknown, remove = false): unknown {
  if (path.length === 0) return value;
  const parent = path.slice(0, -1).reduce<unknown>((o, k) => (o as Record<string | number, unknown>)[k], root) as Record<
    string | number,
    unknown
  >;
  const last = path.at(-1)!;
  if (remove) {
    if (Array.isArray(parent)) parent.splice(last as number, 1);
    else delete parent[last];
  } else parent[last] = value;
  return root;
}

/** A broken version of a valid body: one member replaced, removed or added, or the whole replaced. */
export function mutate(valid: unknown, r: Rng): unknown {
  const copy = structuredClone(valid);
  const paths = members(copy);
  const how = int(r, 0, 6);
  if (paths.length === 0 || how === 0) return chance(r, 0.5) ? pick(r, GARBAGE) : fcSample(r);
  const path = pick(r, paths);
  switch (how) {
    case 1:
      return setAt(copy, path, pick(r, GARBAGE));
    case 2:
      return setAt(copy, path, undefined, true);
    case 3:
      return setAt(copy, path, fcSample(r));
    case 4:
      return Array.isArray(copy) ? [] : [copy, pick(r, GARBAGE)];
    case 5: {
      if (copy !== null && typeof copy === 'object' && !Array.isArray(copy))
        (copy as Record<string, unknown>)[pick(r, ['unknown_field', 'template_html', 'pk', '__proto__'])] = pick(r, GARBAGE);
      return copy;
    }
    default:
      return setAt(copy, path, pick(r, HOSTILE_STRINGS));
  }
}

/** Request bodies that are not JSON, or not the JSON asked for. */
export const BROKEN_JSON = [
  '{',
  '[1,',
  'nul',
  '{"a":1}{',
  '\u0000',
  '{"sku":"\\ud800"}',
  '['.repeat(5000),
  '"just a string"',
  '12',
  'true',
  ' ',
];
