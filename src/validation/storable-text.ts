// Text Postgres cannot store: the NUL character (U+0000) is refused by text columns and by
// jsonb. Found at validation, by pointer, so an item holding one is that item's error (a
// request's 400, a file's row) instead of failing the statement that stores it with others.

const escape = (key: string): string => key.replaceAll('~', '~0').replaceAll('/', '~1');

/** A field error for each string (value or member name) of `value` that holds U+0000, under `pointer`. */
export function nulErrors(value: unknown, pointer: string, out: { pointer: string; code: string; message: string }[] = []): typeof out {
  if (typeof value === 'string') {
    if (value.includes('\0'))
      out.push({ pointer, code: 'invalid_character', message: 'contains the character U+0000 (NUL), which cannot be stored' });
  } else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) nulErrors(value[i], `${pointer}/${i}`, out);
  } else if (typeof value === 'object' && value !== null) {
    for (const key of Object.keys(value)) {
      const at = `${pointer}/${escape(key)}`;
      if (key.includes('\0'))
        out.push({
          pointer: at,
          code: 'invalid_character',
          message: 'the name contains the character U+0000 (NUL), which cannot be stored',
        });
      else nulErrors((value as Record<string, unknown>)[key], at, out);
    }
  }
  return out;
}
