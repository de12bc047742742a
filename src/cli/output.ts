import type { Writable } from 'node:stream';

export type Column<T> = readonly [header: string, value: (row: T) => unknown];

/** A plain ASCII table, columns padded to their widest cell. */
export function formatTable<T>(rows: readonly T[], columns: readonly Column<T>[]): string {
  const cells = rows.map((row) => columns.map(([, value]) => cellText(value(row))));
  const widths = columns.map(([header], i) =>
    Math.max(header.length, ...cells.map((r) => (r[i] ?? '').length)),
  );
  const line = (parts: string[]): string =>
    parts
      .map((p, i) => p.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(columns.map(([h]) => h.toUpperCase())), ...cells.map(line)].join('\n') + '\n';
}

function cellText(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
    return String(value);
  return JSON.stringify(value);
}

/** Key/value lines for one record. */
export function formatRecord(entries: readonly (readonly [string, unknown])[]): string {
  const width = Math.max(...entries.map(([k]) => k.length));
  return entries.map(([k, v]) => `${k.padEnd(width)}  ${cellText(v)}`).join('\n') + '\n';
}

/**
 * Results go to stdout (one JSON document with --json, a table otherwise); notes, progress and
 * warnings go to stderr so that `--json` output stays parseable.
 */
export class Output {
  readonly json: boolean;
  readonly #stdout: Writable;
  readonly #stderr: Writable;

  constructor(json: boolean, stdout: Writable = process.stdout, stderr: Writable = process.stderr) {
    this.json = json;
    this.#stdout = stdout;
    this.#stderr = stderr;
  }

  /** Prints the command's result: `doc` as JSON, or the human rendering. */
  result(doc: unknown, human: () => string): void {
    this.#stdout.write(this.json ? `${JSON.stringify(doc, null, 2)}\n` : human());
  }

  /** One JSON document per line (streams such as `outbox --follow --json`). */
  line(doc: unknown, human: () => string): void {
    this.#stdout.write(this.json ? `${JSON.stringify(doc)}\n` : human());
  }

  note(text: string): void {
    this.#stderr.write(`${text}\n`);
  }
}

/**
 * Ends a command with `code` after it printed its own result (`doctor` exits 1 when a check
 * fails): main() returns the code and prints nothing more.
 */
export class CliExit extends Error {
  readonly code: number;
  constructor(code: number) {
    super(`exit ${String(code)}`);
    this.name = 'CliExit';
    this.code = code;
  }
}
