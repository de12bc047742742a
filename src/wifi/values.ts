/** Small building blocks of the feature's input schemas (plans, devices). */

export type Check<T> = (value: unknown) => T;
export type Checks<V> = { readonly [K in keyof V]: Check<V[K]> };

/** A check from a parser that answers null for a bad value, and the error to throw then. */
export const must =
  <T>(parse: (value: unknown) => T | null, error: () => Error): Check<T> =>
  (value) => {
    const parsed = parse(value);
    if (parsed === null) throw error();
    return parsed;
  };

export const isWholeNumber = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);

/**
 * The values a change supplies, each checked; a field that is absent (undefined) stays as it is.
 * `wire` maps each value to its snake_case request field.
 */
export function parseChanges<V>(
  checks: Checks<V>,
  wire: { readonly [K in keyof V]: string },
  request: Readonly<Record<string, unknown>>,
): Partial<V> {
  const out: Partial<V> = {};
  for (const key of Object.keys(checks) as (keyof V)[]) {
    const value = request[wire[key]];
    if (value !== undefined) out[key] = checks[key](value);
  }
  return out;
}
