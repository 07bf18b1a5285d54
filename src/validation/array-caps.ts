// Array sizes checked before validation. Validating reports every invalid element, so an
// array of a million elements would cost a million error objects (and a reply to match)
// before its `maxItems` said no; this walk looks only at the arrays the schema bounds and
// stops at the first one over its bound.

export interface OversizeArray {
  /** JSON pointer of the array (`/items`, `/0/images`). */
  pointer: string;
  max: number;
  count: number;
}

interface SchemaLike {
  properties?: Record<string, SchemaLike>;
  items?: SchemaLike;
  anyOf?: SchemaLike[];
  oneOf?: SchemaLike[];
  maxItems?: number;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The first array in `value` longer than its schema's `maxItems`, or undefined. Reads the schema's own keys only. */
export function oversizeArray(schema: unknown, value: unknown, pointer = ''): OversizeArray | undefined {
  if (typeof value !== 'object' || value === null || typeof schema !== 'object' || schema === null) return undefined;
  const s = schema as SchemaLike;
  for (const branch of [...(s.anyOf ?? []), ...(s.oneOf ?? [])]) {
    const found = oversizeArray(branch, value, pointer);
    if (found !== undefined) return found;
  }
  if (Array.isArray(value) && s.items !== undefined) {
    if (s.maxItems !== undefined && value.length > s.maxItems) return { pointer, max: s.maxItems, count: value.length };
    for (let i = 0; i < value.length; i++) {
      const found = typeof value[i] === 'object' ? oversizeArray(s.items, value[i], `${pointer}/${i}`) : undefined;
      if (found !== undefined) return found;
    }
  } else if (isObject(value) && s.properties !== undefined) {
    for (const key of boundedKeys(s)) {
      const found = Object.hasOwn(value, key) ? oversizeArray(s.properties[key], value[key], `${pointer}/${key}`) : undefined;
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/**
 * The properties of an object schema under which a bounded array can be (images, variations):
 * the only ones worth a look. Worked out once per schema; a product schema has about 40
 * properties and two of them matter.
 */
const bounded = new WeakMap<SchemaLike, string[]>();
function boundedKeys(s: SchemaLike): string[] {
  let keys = bounded.get(s);
  if (keys === undefined) {
    keys = Object.keys(s.properties!).filter((k) => hasBoundedArray(s.properties![k], new Set()));
    bounded.set(s, keys);
  }
  return keys;
}

function hasBoundedArray(schema: unknown, seen: Set<unknown>): boolean {
  if (typeof schema !== 'object' || schema === null || seen.has(schema)) return false;
  seen.add(schema);
  const s = schema as SchemaLike;
  if (s.maxItems !== undefined) return true;
  return [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.items === undefined ? [] : [s.items]), ...Object.values(s.properties ?? {})].some(
    (x) => hasBoundedArray(x, seen),
  );
}

/** Ajv's own words for it, so it reads like any other validation error. */
export const oversizeMessage = (o: OversizeArray): string => `must NOT have more than ${o.max} items (has ${o.count})`;
