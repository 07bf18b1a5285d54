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

/** A whole file as text (JSON, XML), BOM removed. */
export function decodeUtf8(buffer: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(buffer);
  } catch {
    // Where: the end of the longest prefix that decodes, in steps of 4 KiB.
    let offset = 0;
    for (let i = 0; i < buffer.length; i += 4096) {
      try {
        new TextDecoder('utf-8', { fatal: true }).decode(buffer.subarray(0, Math.min(buffer.length, i + 4100)));
        offset = i;
      } catch {
        break;
      }
    }
    throw invalid(offset);
  }
}
