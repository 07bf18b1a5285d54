// Worker thread of catalog-file: the CPU-heavy reading of one file (chunk.ts) runs here, off
// the daemon's event loop, so requests and feed processing keep their thread. At most
// IN_FLIGHT chunks wait in the main thread (each acknowledged once its feed is written).
import { parentPort } from 'node:worker_threads';
import { validateProducts } from '../../src/catalog/product-validation.ts';
import { AppError } from '../../src/errors.ts';
import { readChunks, type PreparedChunk } from './chunk.ts';

/** Chunks handed to the main thread and not yet written (memory: this many x 1,000 products). */
export const IN_FLIGHT = 3;

export interface WorkerInput {
  file: string;
  format: 'csv' | 'json' | 'xml';
  columns: Record<string, string>;
}

/** From the main thread: a file to read, then an ack per chunk written; then maybe the next file. */
export type WorkerControl = { kind: 'start'; input: WorkerInput } | 'ack';

export type WorkerMessage =
  | { kind: 'chunk'; chunk: PreparedChunk }
  | { kind: 'end'; rows: number }
  /** user: bad input (the file goes to .error/ with this message as its reason). */
  | { kind: 'error'; message: string; user: boolean };

if (parentPort !== null) {
  const port = parentPort;
  let credits = IN_FLIGHT;
  let wake: (() => void) | null = null;
  let start: ((input: WorkerInput) => void) | null = null;
  port.on('message', (m: WorkerControl) => {
    if (m !== 'ack') {
      start?.(m.input);
      return;
    }
    credits++;
    wake?.();
    wake = null;
  });
  // Compile the API's product schema while the run waits for its file, then read files one
  // after another (a reader is kept loaded between runs; see Readers in process-file.ts).
  validateProducts([{}]);
  for (;;) {
    const input = await new Promise<WorkerInput>((resolve) => (start = resolve));
    start = null;
    // Every ack of the previous file came before this start (one port, in order).
    credits = IN_FLIGHT;
    try {
      const rows = await readChunks(input.file, input.format, input.columns, async (chunk) => {
        while (credits === 0) await new Promise<void>((resolve) => (wake = resolve));
        credits--;
        port.postMessage({ kind: 'chunk', chunk } satisfies WorkerMessage);
      });
      port.postMessage({ kind: 'end', rows } satisfies WorkerMessage);
    } catch (error) {
      const user = error instanceof AppError && error.code === 'connector_input';
      port.postMessage({ kind: 'error', message: error instanceof Error ? error.message : String(error), user } satisfies WorkerMessage);
    }
  }
}
