// CSV as source rows (row.ts) for the preset engine: the same parse as read-csv.ts (parseCsv:
// delimiter sniffed, strict UTF-8, RFC 4180, the column limit, the event loop served), each row
// handed over as its header's names and its cells, in batches.
import { userError } from '../sdk/index.ts';
import type { InboxFile } from './inbox.ts';
import { checkWidth, parseCsv } from './read-csv.ts';
import type { RowSink, SourceRow } from './row.ts';

/** Reads `file`, handing `batchSize` rows at a time to `sink` (awaited before reading on). */
export async function readCsvRows(file: InboxFile, batchSize: number, sink: RowSink, signal?: AbortSignal): Promise<void> {
  await parseCsv(
    file,
    async (records) => {
      let header: string[] | null = null;
      let batch: SourceRow[] = [];
      for await (const { line, cells } of records) {
        if (header === null) {
          checkWidth(cells);
          header = cells.map((h) => h.replace(/^\uFEFF/, '').trim());
          continue;
        }
        const names = header;
        batch.push({ line, fields: names.map((h, i) => [h, cells[i] ?? '']) });
        if (batch.length >= batchSize) {
          await sink(batch);
          batch = [];
        }
      }
      if (header === null) throw userError('The file is empty (no header row).');
      if (batch.length > 0) await sink(batch);
    },
    signal,
  );
}
