/**
 * CSV (RFC 4180): comma-separated, CRLF line ends, a field quoted when it holds a comma, a quote
 * or a line break. A text that a spreadsheet would run as a formula (starting with =, @, a tab or
 * a carriage return, or + or - not followed by a number such as a phone) gets a leading ' (the
 * OWASP advice for CSV injection), so an export opened in a spreadsheet runs nothing.
 */

export type CsvValue = string | number | boolean | null | undefined;

const FORMULA = /^[=@\t\r]|^[+-](?![\d\s]*$)/;

export function csvField(value: CsvValue): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (typeof value === 'string' && FORMULA.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A header line, then one line per row, each ending in CRLF. */
export function toCsv<T>(
  columns: readonly (readonly [string, (row: T) => CsvValue])[],
  rows: readonly T[],
): string {
  const line = (fields: readonly CsvValue[]): string => `${fields.map(csvField).join(',')}\r\n`;
  return (
    line(columns.map(([name]) => name)) + rows.map((row) => line(columns.map(([, get]) => get(row)))).join('')
  );
}
