// The one shape every catalog-file reader (CSV, XLSX, XML, JSON) hands to the mapping engine:
// a row of the source as named text fields, in source order, in batches.
import type { InboxFile } from './inbox.ts';

/** One source row: where it starts (line of a CSV/XLSX, item number of a document, from 1) and its fields. */
export interface SourceRow {
  line: number;
  /** [name, value] in source order; a name may repeat (several image columns, list elements). */
  fields: Array<[name: string, value: string]>;
}

/** A batch of rows; the reader reads on once the consumer's promise resolves. */
export type RowSink = (rows: SourceRow[]) => Promise<void>;

/** A format's reader: the rows of an open inbox file handed to `sink` in batches of `batchSize`. */
export type RowReader = (file: InboxFile, batchSize: number, sink: RowSink, signal?: AbortSignal) => Promise<void>;
