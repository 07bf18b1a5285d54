// XML items, streamed through saxes: the elements at `item_path` (e.g. `rss.channel.item`), each
// flattened to fields named by their path below the item (`g:id`, `g:shipping.g:price`, an
// attribute as `link@href`), repeated elements as repeated fields, in document order.
// Only the five built-in entities and character references are read: a DOCTYPE's entities are
// never expanded (an undefined entity is an error of its item), nothing external is fetched.
import { SaxesParser, type SaxesTagNS } from 'saxes';
import { userError } from '../sdk/index.ts';
import type { SourceRow } from './row.ts';

export interface ItemError {
  /** The line the item starts at. */
  line: number;
  message: string;
}

export interface XmlItemOptions {
  item_path: string;
  /** Prefix -> namespace URI: an element in that namespace is named with this prefix, whatever the file's own prefix. */
  namespaces?: Record<string, string>;
  /** An item whose text and names exceed this is an error of its own (characters; default 1 MiB). */
  max_item_bytes: number;
}

interface Open {
  name: string;
  text: string;
  children: boolean;
  /** Whether it has attributes: an empty element with attributes (`<link href=".."/>`) gives those only. */
  attributes: boolean;
}

interface Item {
  line: number;
  depth: number;
  fields: Array<[string, string]>;
  size: number;
  error?: string;
}

/** saxes puts "line:column: " before its messages; the line is said once, our way. */
const bare = (message: string): string => message.replace(/^\d+:\d+: /, '');

/**
 * A push parser: `write` text, then take the rows and item errors found so far. Element names
 * are looked up in Maps only (a `__proto__` element is a name like any other).
 */
export class XmlItems {
  readonly rows: SourceRow[] = [];
  readonly errors: ItemError[] = [];
  private readonly parser = new SaxesParser({ xmlns: true, position: true });
  private readonly path: string[];
  private readonly prefixOf = new Map<string, string>();
  private readonly stack: Open[] = [];
  private item: Item | null = null;
  /** Tags saxes popped while unwinding a close tag that matches no open element (see restore). */
  private popped: SaxesTagNS[] = [];
  private unwinding = false;

  private readonly opts: XmlItemOptions;

  constructor(opts: XmlItemOptions) {
    this.opts = opts;
    this.path = opts.item_path.split('.').filter((s) => s !== '');
    for (const [prefix, uri] of Object.entries(opts.namespaces ?? {})) this.prefixOf.set(uri, prefix);
    const p = this.parser;
    p.on('opentag', (tag) => this.open(tag));
    p.on('closetag', (tag) => this.close(tag));
    p.on('text', (t) => this.text(t));
    p.on('cdata', (t) => this.text(t));
    p.on('error', (e) => this.error(e.message));
  }

  write(chunk: string): void {
    this.parser.write(chunk);
  }

  /** The end of the file: an item still open is an error of its own (the file ends inside it). */
  end(): void {
    this.parser.close();
    this.flush();
    if (this.item !== null) {
      this.errors.push({ line: this.item.line, message: this.item.error ?? 'The file ends inside this item.' });
      this.item = null;
    }
  }

  private name(tag: SaxesTagNS): string {
    const known = tag.uri === '' ? undefined : this.prefixOf.get(tag.uri);
    if (known !== undefined) return `${known}:${tag.local}`;
    return tag.prefix !== '' ? tag.name : tag.local;
  }

  private atItemPath(): boolean {
    const s = this.stack;
    if (s.length !== this.path.length) return false;
    for (let i = 0; i < s.length; i++) if (s[i]!.name !== this.path[i]) return false;
    return true;
  }

  private relative(): string {
    return this.stack
      .slice(this.item!.depth)
      .map((o) => o.name)
      .join('.');
  }

  private add(name: string, value: string): void {
    const item = this.item!;
    if (item.error !== undefined) return;
    item.size += name.length + value.length;
    if (item.size > this.opts.max_item_bytes) {
      item.error = `The item is larger than ${this.opts.max_item_bytes} characters.`;
      item.fields = [];
      return;
    }
    item.fields.push([name, value]);
  }

  private open(tag: SaxesTagNS): void {
    this.flush();
    const top = this.stack.at(-1);
    if (top !== undefined) top.children = true;
    this.stack.push({ name: this.name(tag), text: '', children: false, attributes: false });
    if (this.item === null && this.atItemPath()) {
      this.item = { line: this.parser.line, depth: this.stack.length, fields: [], size: 0 };
    }
    if (this.item === null) return;
    const rel = this.relative();
    for (const attr of Object.values(tag.attributes)) {
      if (attr.prefix === 'xmlns' || attr.name === 'xmlns') continue;
      this.stack.at(-1)!.attributes = true;
      this.add(`${rel}@${attr.prefix !== '' ? attr.name : attr.local}`, attr.value);
    }
  }

  /**
   * saxes closes elements one by one, and after each that is not the one named says
   * "unexpected close tag." Closes are applied at the next other event, once it is known
   * whether the close tag named an open element at all (see restore).
   */
  private close(tag: SaxesTagNS): void {
    if (!this.unwinding) this.flush();
    this.unwinding = false;
    this.popped.push(tag);
  }

  private flush(): void {
    this.unwinding = false;
    const tags = this.popped;
    this.popped = [];
    for (let i = 0; i < tags.length; i++) this.applyClose();
  }

  private applyClose(): void {
    const top = this.stack.at(-1);
    if (top === undefined) return;
    const value = top.text.trim();
    if (this.item !== null && !top.children && this.stack.length > this.item.depth && (value !== '' || !top.attributes))
      this.add(this.relative(), value);
    this.stack.pop();
    if (this.item !== null && this.stack.length < this.item.depth) {
      const { line, fields, error } = this.item;
      this.item = null;
      if (error !== undefined) this.errors.push({ line, message: error });
      else this.rows.push({ line, fields });
    }
  }

  private text(t: string): void {
    this.flush();
    const top = this.stack.at(-1);
    if (top !== undefined && this.item !== null && !top.children) top.text += t;
  }

  private error(message: string): void {
    const msg = bare(message);
    // A prefix the file never declared (g: used without xmlns:g): named as written.
    if (msg.startsWith('unbound namespace prefix')) return;
    if (this.item === null) throw userError(`The XML is not well-formed at line ${this.parser.line}: ${msg}`);
    this.item.error ??= `Line ${this.parser.line}: ${msg}`;
    if (msg === 'unexpected close tag.') this.unwinding = true;
    else if (msg.startsWith('unmatched closing tag')) this.restore();
  }

  /**
   * A close tag naming no open element makes saxes close every open element (the channel and
   * the root too), which would end the document there. The innermost element is taken as
   * closed; the others are opened again in saxes, so the items after it are read.
   */
  private restore(): void {
    const reopen = this.popped.slice(1).reverse();
    this.popped = [];
    this.unwinding = false;
    this.applyClose();
    const internals = this.parser as unknown as { tags: SaxesTagNS[]; topNS: unknown; tag: SaxesTagNS };
    internals.tags.push(...reopen);
    const top = internals.tags.at(-1);
    if (top !== undefined) [internals.topNS, internals.tag] = [top.ns, top];
  }
}
