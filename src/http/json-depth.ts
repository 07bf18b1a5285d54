// The shape of a JSON text, measured before parsing: JSON.parse takes any depth and any size,
// but what follows (structuredClone, JSON.stringify, validation, Postgres jsonb) recurses and
// overflows the stack on a body of 100,000 brackets, and the parsed values take far more heap
// than their text (`{},` is 3 bytes of text and some 50 of heap). The API refuses such bodies
// before it parses them.

/** Deepest nesting any request body or pushed JSON may have. Real payloads use about 5 levels. */
export const MAX_JSON_DEPTH = 64;

/**
 * Most values (array elements and object members, at any depth) one body may hold. 10,000
 * products of 40 fields, 10 images and 20 variations each are about 3 million; 4 million
 * empty objects parse to about 250 MB of heap.
 */
export const MAX_JSON_VALUES = 4_000_000;

/**
 * Most members one object may have. A product has about 50 fields; an object of 3 million
 * took seconds of the event loop to parse, copy and strip.
 */
export const MAX_JSON_MEMBERS = 10_000;

export type JsonShapeProblem = 'too_deep' | 'too_many_values' | 'too_many_members';

/**
 * What is wrong with the shape of `text`, if anything: nested deeper than `maxDepth`, more
 * than `maxValues` values, or an object of more than MAX_JSON_MEMBERS members (brackets and
 * commas inside strings do not count).
 */
export function jsonShapeProblem(text: string, maxDepth = MAX_JSON_DEPTH, maxValues = MAX_JSON_VALUES): JsonShapeProblem | undefined {
  let depth = 0;
  let values = 0;
  let inString = false;
  // Per open container: whether it is an object, and its commas so far.
  const isObject = new Uint8Array(maxDepth + 2);
  const commas = new Uint32Array(maxDepth + 2);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > maxDepth) return 'too_deep';
      if (++values > maxValues) return 'too_many_values';
      isObject[depth] = c === 0x7b ? 1 : 0;
      commas[depth] = 0;
    } else if (c === 0x7d || c === 0x5d) depth--;
    else if (c === 0x2c) {
      if (++values > maxValues) return 'too_many_values';
      if (isObject[depth] === 1 && ++commas[depth]! >= MAX_JSON_MEMBERS) return 'too_many_members';
    }
  }
  return undefined;
}

/** True when `text` nests arrays/objects deeper than `max`. */
export const jsonTooDeep = (text: string, max = MAX_JSON_DEPTH): boolean => jsonShapeProblem(text, max, Infinity) === 'too_deep';
