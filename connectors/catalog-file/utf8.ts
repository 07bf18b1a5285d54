// Strict UTF-8 for export files: a file with invalid bytes is refused whole (with where),
// rather than read with U+FFFD in product names.
import { userError } from '../../src/connectors/host/contract.ts';

const invalid = (offset: number) =>
  userError(`The file is not valid UTF-8 (bad bytes near byte ${offset}); export it as UTF-8.`);

/** Text of a byte stream fed chunk by chunk (a BOM is kept); throws on the first invalid sequence. */
export function utf8Text(): { decode(chunk: Buffer): string; end(): string } {
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  let offset = 0;
  return {
    decode(chunk) {
      try {
        const text = decoder.decode(chunk, { stream: true });
        offset += chunk.length;
        return text;
      } catch {
        throw invalid(offset);
      }
    },
    end() {
      try {
        return decoder.decode();
      } catch {
        throw invalid(offset);
      }
    },
  };
}

/** A whole buffer as text (JSON, XML), BOM removed. */
export function decodeUtf8(buffer: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(buffer);
  } catch {
    // Find the offset for the message: decode growing prefixes would be slow; scan instead.
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
