/**
 * An error the caller is meant to see: a stable code, an HTTP status and the exact message the
 * specs quote. Features keep catalogues of these (`<feature>/errors.ts`); renderers are the HTTP
 * adapter, the CLI and the RADIUS decision table.
 */
export class AppError extends Error {
  readonly code: string;
  readonly status: number;
  readonly details: readonly string[] | undefined;
  readonly headers: Readonly<Record<string, string>> | undefined;

  constructor(
    code: string,
    status: number,
    message: string,
    options: { details?: readonly string[]; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.status = status;
    this.details = options.details;
    this.headers = options.headers;
  }
}

export const isAppError = (err: unknown): err is AppError => err instanceof AppError;

/** Builds a frozen catalogue of error factories: `errors.notFound()` → AppError. */
export function errorCatalogue<const T extends Record<string, readonly [status: number, message: string]>>(
  entries: T,
): { readonly [K in keyof T]: (details?: readonly string[]) => AppError } {
  const out: Record<string, (details?: readonly string[]) => AppError> = {};
  for (const [code, [status, message]] of Object.entries(entries)) {
    out[code] = (details) => new AppError(code, status, message, details ? { details } : {});
  }
  return Object.freeze(out) as { readonly [K in keyof T]: (details?: readonly string[]) => AppError };
}
