// Strict UTF-8 for export files: a file with invalid bytes is refused whole (with where),
// rather than read with U+FFFD in product names.
import { Transform } from 'node:stream';
import { userError } from '../../src/connectors/host/contract.ts';

const invalid = (offset: number) =>
  userError(`The file is not valid UTF-8 (bad bytes near byte ${offset}); export it as UTF-8.`);

/** Decodes a byte stream to text, failing on the first invalid sequence. */
export function utf8Decoder(): Transform {
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  let offset = 0;
  return new Transform({
    readableObjectMode: false,
    decodeStrings: true,
    transform(chunk: Buffer, _enc, cb) {
      try {
        const text = decoder.decode(chunk, { stream: true });
        offset += chunk.length;
        cb(null, text);
      } catch {
        cb(invalid(offset));
      }
    },
    flush(cb) {
      try {
        cb(null, decoder.decode());
      } catch {
        cb(invalid(offset));
      }
    },
  });
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
