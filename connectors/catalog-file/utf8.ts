// Strict UTF-8 for export files: a file with invalid bytes is refused whole (saying where),
// rather than read with U+FFFD in product names.
import { userError } from '../sdk/index.ts';

const invalid = (offset: number): Error => userError(`The file is not valid UTF-8 (bad bytes near byte ${offset}); export it as UTF-8.`);

/** A pipeline step: passes the bytes on unchanged, and fails at the first invalid sequence. */
export async function* checkUtf8(source: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let offset = 0;
  for await (const chunk of source) {
    try {
      decoder.decode(chunk, { stream: true });
    } catch {
      throw invalid(offset);
    }
    offset += chunk.length;
    yield chunk;
  }
  try {
    decoder.decode();
  } catch {
    throw invalid(offset);
  }
}

/** Characters that could hide or reorder text in a report or a log (controls, format characters such as zero-width and bidi ones, line separators). */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;

/**
 * A short, escaped excerpt of file content for a report or a log: in quotes, at most `max`
 * characters of it, control and invisible characters as \uXXXX escapes. A file's content is
 * never quoted longer than that.
 */
export function excerpt(text: string, max = 40): string {
  return `"${clip(text.replaceAll('\\', '\\\\').replaceAll('"', '\\"'), max)}"`;
}

/** A message that may quote file content (a parser's), cut at `max` characters, control and invisible characters escaped. */
export function clip(text: string, max: number): string {
  const cut = [...text.slice(0, max * 2)].slice(0, max).join('');
  return `${cut.replace(HIDDEN, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}${cut.length < text.length ? '…' : ''}`;
}
