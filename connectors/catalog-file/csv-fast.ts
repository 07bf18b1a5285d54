// The common case of a catalog CSV read without csv-parse, about 4x faster: records ending in
// LF or CRLF (the first one outside quotes decides, as csv-parse's discovery does), quoted
// fields with "" escapes and line breaks, every record as wide as the header. It gives the
// rows and line numbers csv-parse gives with parse-csv.ts's options (bom, skip_empty_lines, no
// trimming, no relaxing). At the first record it cannot read that way (broken quoting, a
// record wider or narrower than the header, a stray CR or LF, a record of 300,000 characters
// or more, where csv-parse's 1 MB limit may apply) it stops, and parse-csv.ts has csv-parse
// read the rest of the file from that record on: errors and odd files read exactly as before.
import type { CsvRow } from './parse-csv.ts';

const QUOTE = 34;
const LF = 10;
const CR = 13;

/** A record this long (characters) may pass csv-parse's limit of 1 MiB (up to 3 bytes each): left to it. */
const MAX_FAST_RECORD = 300_000;

/** Where the fast reading stopped: csv-parse reads on from the record starting `text`. */
export interface Handover {
  /** The text not read yet, from the start of the record that stopped the fast reading. */
  text: string;
  /** csv-parse's line count at that record, minus one (add it to the lines csv-parse gives). */
  lineOffset: number;
  /** The record delimiter found so far, for csv-parse to keep (null: none yet, csv-parse discovers it). */
  recordDelimiter: '\n' | '\r\n' | null;
  /** The header's width, which the first record read by csv-parse must have (null: no header read yet). */
  width: number | null;
}

type Step =
  | { kind: 'row'; cells: string[]; line: number; next: number }
  | { kind: 'empty'; next: number }
  /** The text ends inside the record: more is needed. */
  | { kind: 'more' }
  /** Not the common case: csv-parse takes over at this record. */
  | { kind: 'odd' };

export class FastCsv {
  readonly #delimiter: number;
  /** Unread text, from the start of a record. */
  #text = '';
  /** csv-parse's line count at the start of #text. */
  #line = 1;
  #eol: '\n' | '\r\n' | null = null;
  #width = -1;
  #started = false;
  #handover: Handover | null = null;

  constructor(delimiter: ',' | ';') {
    this.#delimiter = delimiter.charCodeAt(0);
  }

  /** Set once the fast reading stopped; push() then takes no more text. */
  get handover(): Handover | null {
    return this.#handover;
  }

  /**
   * Reads the records `chunk` completes (all that is left, with `end`) into `out`. Returns
   * false when it stopped: `handover` says where csv-parse goes on (with the rest of the
   * stream after it).
   */
  push(chunk: string, end: boolean, out: CsvRow[]): boolean {
    if (this.#handover !== null) throw new Error('the fast CSV reader has stopped');
    let text = this.#text === '' ? chunk : this.#text + chunk;
    if (!this.#started && text.length > 0) {
      this.#started = true;
      // csv-parse's bom option: a UTF-8 BOM at the very start is not data.
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    let p = 0;
    while (p < text.length) {
      const step = this.#record(text, p, end);
      if (step.kind === 'more') break;
      if (step.kind === 'odd') {
        this.#text = '';
        this.#handover = { text: text.slice(p), lineOffset: this.#line - 1, recordDelimiter: this.#eol, width: this.#width === -1 ? null : this.#width };
        return false;
      }
      if (step.kind === 'row') {
        if (this.#width === -1) this.#width = step.cells.length;
        out.push({ line: step.line, cells: step.cells });
        this.#line = step.line + 1;
      } else {
        this.#line++;
      }
      p = step.next;
    }
    this.#text = p === 0 ? text : text.slice(p);
    if (end && this.#text !== '') {
      // (Not expected: at the end every record is read or handed over.)
      this.#handover = { text: this.#text, lineOffset: this.#line - 1, recordDelimiter: this.#eol, width: this.#width === -1 ? null : this.#width };
      this.#text = '';
      return false;
    }
    return true;
  }

  /** One record from `p` (a record's start). */
  #record(text: string, p: number, end: boolean): Step {
    const len = text.length;
    const delimiter = this.#delimiter;
    // An empty line (no character before its delimiter) is skipped, as skip_empty_lines does.
    const first = text.charCodeAt(p);
    if (first === LF || first === CR) {
      const eol = this.#lineEnd(text, p, end);
      if (eol === 'more' || eol === 'odd') return { kind: eol };
      return { kind: 'empty', next: p + eol };
    }
    const cells: string[] = [];
    // Line breaks inside quoted fields: csv-parse counts each CR and each LF as a line.
    let breaks = 0;
    let i = p;
    for (;;) {
      if (i - p >= MAX_FAST_RECORD) return { kind: 'odd' };
      let c = i < len ? text.charCodeAt(i) : -1;
      if (c === QUOTE) {
        // A quoted field: up to the quote not doubled.
        const from = i + 1;
        let j = from;
        let escaped = false;
        let close: number;
        for (;;) {
          const q = text.indexOf('"', j);
          // Not closed in this text: more is needed, unless the text ends here or it is long.
          if (q === -1) return end || len - p >= MAX_FAST_RECORD ? { kind: 'odd' } : { kind: 'more' };
          if (q - p >= MAX_FAST_RECORD) return { kind: 'odd' };
          if (q + 1 === len && !end) return { kind: 'more' };
          if (text.charCodeAt(q + 1) === QUOTE) {
            escaped = true;
            j = q + 2;
            continue;
          }
          close = q;
          break;
        }
        let value = text.slice(from, close);
        for (let k = value.indexOf('\n'); k !== -1; k = value.indexOf('\n', k + 1)) breaks++;
        for (let k = value.indexOf('\r'); k !== -1; k = value.indexOf('\r', k + 1)) breaks++;
        if (escaped) value = value.replaceAll('""', '"');
        cells.push(value);
        i = close + 1;
        c = i < len ? text.charCodeAt(i) : -1;
        if (c === delimiter) {
          i++;
          continue;
        }
        if (c !== -1 && c !== LF && c !== CR) return { kind: 'odd' }; // anything else after a closing quote
      } else {
        // An unquoted field: up to a delimiter or the record's end; a quote inside is odd.
        const from = i;
        while (i < len) {
          c = text.charCodeAt(i);
          if (c === delimiter || c === LF || c === CR) break;
          if (c === QUOTE) return { kind: 'odd' };
          i++;
        }
        if (i - p >= MAX_FAST_RECORD) return { kind: 'odd' };
        cells.push(text.slice(from, i));
        if (i < len && c === delimiter) {
          i++;
          continue;
        }
        c = i < len ? c : -1;
      }
      // The record ends here: at a line end, or at the end of the text.
      if (c === -1) {
        if (!end) return { kind: 'more' };
        return this.#row(cells, breaks, len);
      }
      const eol = this.#lineEnd(text, i, end);
      if (eol === 'more' || eol === 'odd') return { kind: eol };
      return this.#row(cells, breaks, i + eol);
    }
  }

  #row(cells: string[], breaks: number, next: number): Step {
    if (this.#width !== -1 && cells.length !== this.#width) return { kind: 'odd' };
    return { kind: 'row', cells, line: this.#line + breaks, next };
  }

  /**
   * The record delimiter at `i` (a CR or LF outside quotes): its length, once it is the file's
   * (the first one found sets it, CRLF before LF, as csv-parse's discovery does). A lone CR,
   * or the other kind, is odd: csv-parse reads those as data.
   */
  #lineEnd(text: string, i: number, end: boolean): number | 'more' | 'odd' {
    const c = text.charCodeAt(i);
    if (c === LF) {
      this.#eol ??= '\n';
      return this.#eol === '\n' ? 1 : 'odd';
    }
    // CR: a record delimiter only as CRLF.
    if (i + 1 >= text.length) return end ? 'odd' : 'more';
    if (text.charCodeAt(i + 1) !== LF) return 'odd';
    this.#eol ??= '\r\n';
    return this.#eol === '\r\n' ? 2 : 'odd';
  }
}
