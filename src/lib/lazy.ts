/**
 * A module loaded on its first use rather than at start (bench/footprint.ts): what only some
 * routes or commands need (passkeys, social login, SMTP, the setup wizard, PostgreSQL) costs
 * start time and memory only on a box that uses it.
 *
 *   const webauthn = lazy('@simplewebauthn/server', () => import('@simplewebauthn/server'));
 *   const { verifyRegistrationResponse } = await webauthn();
 *
 * Every caller shares one import. One that fails rejects with an error naming the module (the
 * import's own error as its `cause`), and the next call tries again.
 */
export function lazy<T>(name: string, load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | null = null;
  return () => {
    loading ??= load().catch((err: unknown) => {
      loading = null;
      const reason = err instanceof Error ? err.message : String(err);
      throw new Error(`cannot load ${name}: ${reason}`, { cause: err });
    });
    return loading;
  };
}
