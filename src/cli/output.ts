// CLI output: one JSON object on stdout with --json, readable lines otherwise.
export interface Output {
  json: boolean;
  /** Prints a result: the object with --json, else the text. */
  result(object: Record<string, unknown>, text: string): void;
}

export const createOutput = (json: boolean): Output => ({
  json,
  result(object, text) {
    process.stdout.write(json ? `${JSON.stringify(object)}\n` : `${text}\n`);
  },
});

/** A plain table: columns padded to their widest cell. */
export function table(rows: Record<string, unknown>[], columns: string[]): string {
  if (rows.length === 0) return '(none)';
  const cell = (v: unknown): string => (v === null || v === undefined ? '-' : String(v));
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(columns), ...rows.map((r) => line(columns.map((c) => cell(r[c]))))].join('\n');
}
