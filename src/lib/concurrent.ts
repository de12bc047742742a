/**
 * `fn` over `items` with at most `limit` calls under way at once; the results in the items'
 * order. After a call fails no new one starts; the promise rejects with that first error once
 * the calls already under way have ended (nothing is left running behind the caller's back).
 */
export async function mapConcurrent<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const state: { failure?: { err: unknown } } = {};
  const worker = async (): Promise<void> => {
    while (state.failure === undefined && next < items.length) {
      const i = next++;
      try {
        results[i] = await fn(items[i] as T);
      } catch (err) {
        state.failure ??= { err };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (state.failure) throw state.failure.err;
  return results;
}
