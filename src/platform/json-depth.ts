// How deeply a JSON text nests, measured before parsing: JSON.parse takes any depth, but
// what follows (structuredClone, JSON.stringify, validation, Postgres jsonb) recurses and
// overflows the stack on a body of 100,000 brackets. The API refuses such bodies with 400.

/** Deepest nesting any request body or pushed JSON may have. Real payloads use about 5 levels. */
export const MAX_JSON_DEPTH = 64;

/** True when `text` nests arrays/objects deeper than `max` (brackets inside strings do not count). */
export function jsonTooDeep(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}
