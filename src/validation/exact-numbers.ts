// Numbers a JSON body holds that a JavaScript number cannot keep exactly: `1e400` parses to
// Infinity (then serialized as null), `123456789012345678901234567890` to 1.2345678901234568e+29,
// `9007199254740993` to ...992. Parsed as usual they would be stored changed without a word, so
// the body parser leaves such a number as an InexactNumber (holding its text) and validation
// refuses it by pointer with the body's other errors. A number is kept exactly when the number it
// parses to prints as the same decimal value (`0.1`, `1.50`, `1e2`, `5e-324` are).

/** A number of a request body that parsing would have changed; `source` is its text as sent. */
export class InexactNumber {
  readonly source: string;
  constructor(source: string) {
    this.source = source;
  }
  /** Never stored as is (validation refuses it); printed as the number it would have become. */
  toJSON(): number | null {
    const n = Number(this.source);
    return Number.isFinite(n) ? n : null;
  }
}

export const INEXACT_NUMBER_CODE = 'inexact_number';
export const inexactMessage = (n: InexactNumber): string =>
  `${n.source.length > 40 ? `${n.source.slice(0, 40)}...` : n.source} cannot be kept exactly as a number (finite, at most 15-17 significant digits); send it as a string to keep it as written`;

/** Sign, significant digits (no leading or trailing zeros) and the exponent of their last digit. */
function decimal(text: string): { negative: boolean; digits: string; exponent: number } {
  const m = /^(-?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (m === null) return { negative: false, digits: '', exponent: Number.NaN };
  const [, sign = '', int = '', frac = '', exp = '0'] = m;
  let digits = (int + frac).replace(/^0+/, '');
  let exponent = Number(exp) - frac.length;
  const trailing = /0*$/.exec(digits)![0].length;
  digits = digits.slice(0, digits.length - trailing);
  exponent += trailing;
  if (digits === '') return { negative: false, digits: '0', exponent: 0 };
  return { negative: sign === '-', digits, exponent };
}

/** True when the JSON number `source` parses to a finite number printing the same decimal value. */
export function keepsExactly(source: string): boolean {
  const n = Number(source);
  if (!Number.isFinite(n)) return false;
  const a = decimal(source);
  const b = decimal(String(n));
  return a.digits === b.digits && a.exponent === b.exponent && a.negative === b.negative;
}

// Cheap pre-check over the text: a number with an exponent or of 16 or more digits may be
// inexact; anything else (the usual body) parses without a reviver. Text inside strings can
// match too: that only costs the slower parse.
const SUSPECT = /[:,[]\s*-?(?:\d[\d.]{15,}|[\d.]+[eE])/;

/** Containers (objects, arrays) holding an InexactNumber at any depth. */
const holders = new WeakSet<object>();

/** False when every number of the JSON `text` is surely kept exactly by JSON.parse. */
export const mayHoldInexact = (text: string): boolean => SUSPECT.test(text);

/** JSON.parse, keeping numbers it would change as InexactNumber. Throws as JSON.parse does. */
export function parseJsonExact(text: string): unknown {
  if (!mayHoldInexact(text)) return JSON.parse(text);
  return JSON.parse(text, function revive(this: unknown, _key: string, value: unknown, context?: { source?: string }) {
    if (typeof value === 'number') {
      const source = context?.source;
      return source === undefined || keepsExactly(source) ? value : new InexactNumber(source);
    }
    if (typeof value === 'object' && value !== null) {
      for (const v of Object.values(value)) {
        if (v instanceof InexactNumber || (typeof v === 'object' && v !== null && holders.has(v))) {
          holders.add(value);
          break;
        }
      }
    }
    return value;
  });
}

const escape = (key: string): string => key.replaceAll('~', '~0').replaceAll('/', '~1');

/**
 * Each InexactNumber inside `value`, by JSON pointer under `prefix`. Only the containers the
 * parser saw holding one are searched, unless `copied`: `value` may be a copy of the parsed body
 * (a route's preValidation), so every container is.
 */
export function inexactNumbers(value: unknown, prefix = '', copied = false): { pointer: string; number: InexactNumber }[] {
  const out: { pointer: string; number: InexactNumber }[] = [];
  const walk = (v: unknown, at: string): void => {
    if (v instanceof InexactNumber) out.push({ pointer: at, number: v });
    else if (typeof v === 'object' && v !== null && (copied || holders.has(v))) {
      for (const [k, child] of Object.entries(v)) walk(child, `${at}/${escape(k)}`);
    }
  };
  walk(value, prefix);
  return out;
}

interface SchemaError {
  instancePath: string;
  schemaPath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}

/**
 * Schema errors of `data` with each InexactNumber as its field's one error (keyword
 * `inexactNumber`, in place of "must be number"); `errors` unchanged when there is none.
 */
export function withInexactErrors<E extends SchemaError>(
  data: unknown,
  errors: E[] | null | undefined,
): (E | SchemaError)[] | null | undefined {
  const inexact = inexactNumbers(data, '', true);
  if (inexact.length === 0) return errors;
  const at = new Set(inexact.map((x) => x.pointer));
  return [
    ...inexact.map(({ pointer, number }) => ({
      instancePath: pointer,
      schemaPath: '',
      keyword: 'inexactNumber',
      params: {},
      message: inexactMessage(number),
    })),
    ...(errors ?? []).filter((e) => !at.has(e.instancePath)),
  ];
}
