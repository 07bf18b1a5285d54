// JSON items, streamed: @streamparser/json's tokenizer gives the tokens of the document; the
// containers around the items are only tracked (path, depth), each item is assembled by a
// token parser of its own. So an item that is not valid JSON, or larger than the cap, is an
// error of that item and the items after it are read; memory holds one item at a time.
import { Tokenizer, TokenParser, TokenType, type ParsedTokenInfo } from '@streamparser/json';
import { flattenItem, type ValueScope } from './flatten.ts';
import type { ItemError } from './read-xml-items.ts';
import type { SourceRow } from './row.ts';

export interface JsonItemOptions extends ValueScope {
  /** Dotted keys to the items' array (`_embedded.items`); '' = the document itself (an array: its elements). */
  item_path: string;
  /** An item longer than this is an error of its own (bytes; default 1 MiB). */
  max_item_bytes: number;
}

interface Frame {
  array: boolean;
  path: string;
  key: string | null;
  expectKey: boolean;
}

interface Item {
  parser: TokenParser | null;
  depth: number;
  start: number;
  line: number;
  value?: unknown;
  error?: string;
}

/** Line numbers of byte offsets met in increasing order: newlines are counted once, as the bytes pass. */
class Lines {
  private chunk: Uint8Array = new Uint8Array(0);
  private chunkStart = 0;
  private scanned = 0;
  private line = 1;

  next(chunk: Uint8Array): void {
    this.at(this.chunkStart + this.chunk.length);
    this.chunkStart += this.chunk.length;
    this.chunk = chunk;
  }

  at(offset: number): number {
    const end = Math.min(offset, this.chunkStart + this.chunk.length);
    for (let i = Math.max(this.scanned, this.chunkStart); i < end; i++) if (this.chunk[i - this.chunkStart] === 0x0a) this.line++;
    if (end > this.scanned) this.scanned = end;
    return this.line;
  }
}

const OPENS = new Set([TokenType.LEFT_BRACE, TokenType.LEFT_BRACKET]);
const CLOSES = new Set([TokenType.RIGHT_BRACE, TokenType.RIGHT_BRACKET]);

/**
 * The items at `item_path`, as rows made by `row` (by default: flattened to fields). `root`
 * says what the document is once its first token is read.
 */
export class JsonItems<T = SourceRow> {
  readonly rows: T[] = [];
  root: 'array' | 'value' | null = null;
  readonly errors: ItemError[] = [];
  private readonly tokenizer = new Tokenizer();
  private readonly lines = new Lines();
  private readonly stack: Frame[] = [];
  private item: Item | null = null;

  private readonly opts: JsonItemOptions;
  private readonly row: (value: unknown, line: number) => T;

  constructor(opts: JsonItemOptions, row?: (value: unknown, line: number) => T) {
    this.opts = opts;
    this.row = row ?? ((value, line) => ({ line, fields: flattenItem(value, opts) }) as T);
    this.tokenizer.onToken = (t) => this.token(t);
  }

  /** Throws (a TokenizerError) where the bytes are not JSON tokens at all: the file cannot be read on. */
  write(chunk: Uint8Array): void {
    this.lines.next(chunk);
    this.tokenizer.write(chunk);
  }

  /** A tokenizer error as one sentence with its line ("Unexpected "}" at chunk position ... (absolute position "31")"). */
  explain(error: Error): string {
    const at = /absolute position "(\d+)"/.exec(error.message);
    const what = /^(Unexpected "[^"]*")/.exec(error.message)?.[1] ?? error.message;
    const line = this.lines.at(at === null ? Number.MAX_SAFE_INTEGER : Number(at[1]));
    return `The JSON is not valid at line ${line}: ${what.replace(/^Unexpected/, 'unexpected')}.`;
  }

  end(): void {
    if (this.item !== null) {
      this.errors.push({ line: this.item.line, message: this.item.error ?? 'The file ends inside this item.' });
      this.item = null;
    }
    this.tokenizer.end();
  }

  private token(t: ParsedTokenInfo): void {
    this.root ??= t.token === TokenType.LEFT_BRACKET ? 'array' : 'value';
    if (this.item !== null) return this.inItem(t);
    const top = this.stack.at(-1);
    switch (t.token) {
      case TokenType.COLON:
      case TokenType.SEPARATOR:
        return;
      case TokenType.COMMA:
        if (top !== undefined && !top.array) top.expectKey = true;
        return;
      case TokenType.RIGHT_BRACE:
      case TokenType.RIGHT_BRACKET:
        this.stack.pop();
        return;
      case TokenType.STRING:
        if (top !== undefined && !top.array && top.expectKey) {
          [top.key, top.expectKey] = [String(t.value), false];
          return;
        }
    }
    // A value starts: where is it?
    const path = top === undefined ? '' : top.array ? top.path : top.path === '' ? (top.key ?? '') : `${top.path}.${top.key ?? ''}`;
    const wanted = this.opts.item_path;
    if ((top?.array === true && top.path === wanted) || (path === wanted && t.token !== TokenType.LEFT_BRACKET)) {
      const parser = new TokenParser();
      const item: Item = { parser, depth: 0, start: t.offset, line: this.lines.at(t.offset) };
      parser.onValue = ({ value, stack }) => {
        if (stack.length === 0) item.value = value;
      };
      this.item = item;
      return this.inItem(t);
    }
    if (OPENS.has(t.token)) this.stack.push({ array: t.token === TokenType.LEFT_BRACKET, path, key: null, expectKey: true });
  }

  private inItem(t: ParsedTokenInfo): void {
    const item = this.item!;
    if (item.error === undefined && t.offset - item.start > this.opts.max_item_bytes) {
      item.error = `The item is larger than ${this.opts.max_item_bytes} bytes.`;
      item.parser = null;
    }
    if (item.parser !== null) {
      try {
        item.parser.write(t);
      } catch (error) {
        item.error = `Line ${this.lines.at(t.offset)}: ${(error as Error).message}`;
        item.parser = null;
      }
    }
    if (OPENS.has(t.token)) item.depth++;
    else if (CLOSES.has(t.token)) item.depth--;
    if (item.depth > 0) return;
    this.item = null;
    if (item.error !== undefined) this.errors.push({ line: item.line, message: item.error });
    else this.rows.push(this.row(item.value, item.line));
  }
}
