// The one CSV writer: RFC 4180 cells, and cells a spreadsheet would run as a formula made
// inert, as OWASP advises against CSV injection: a cell starting with = + - @ TAB or CR gets a
// leading single quote and is quoted, so Excel, LibreOffice and Sheets show it as text.
// A program reading such a cell back gets the quote too: the price of never running a formula.

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

export function csvCell(value: unknown): string {
  const s = value === undefined || value === null ? '' : String(value);
  const formula = FORMULA_START.test(s);
  const text = formula ? `'${s}` : s;
  return formula || NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One row, without its line ending. */
export const csvLine = (values: readonly unknown[]): string => values.map(csvCell).join(',');
