import type { Db } from '../db/index.js';
import { randomToken } from '../lib/crypto.js';
import { lazy } from '../lib/lazy.js';
import { findUserById, replacePasswordHash } from './users.store.js';

/** The argon2 binding, loaded by the first password hashed or checked: bench/footprint.ts. */
const argon2 = lazy('argon2', async () => {
  const { default: binding } = await import('argon2');
  /** OWASP's argon2id baseline: 19 MiB, 2 iterations, 1 lane. */
  const params = { type: binding.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;
  return { binding, params };
});

export async function hashPassword(password: string): Promise<string> {
  const { binding, params } = await argon2();
  return binding.hash(password, params);
}

export async function verifyPassword(hash: string, password: string): Promise<boolean> {
  // Outside the try: a binding that cannot load is a server error, not a wrong password.
  const { binding } = await argon2();
  try {
    return await binding.verify(hash, password);
  } catch {
    return false; // a malformed stored hash never matches
  }
}

/**
 * After a login verified `password` against `hash`: the hash that proves it from now on, redone
 * when it was made with other parameters, or null when a reset or change replaced the password
 * meanwhile (the old one must not come back, nor sign anyone in). The session or MFA challenge
 * the login creates checks, in its own transaction, that this hash is still the user's.
 */
export async function provenPasswordHash(
  db: Db,
  user: { id: string; password_hash: string },
  password: string,
): Promise<string | null> {
  const { binding, params } = await argon2();
  if (!binding.needsRehash(user.password_hash, params)) return user.password_hash;
  const rehashed = await hashPassword(password);
  if (await replacePasswordHash(db, user.id, user.password_hash, rehashed)) return rehashed;
  // Replaced meanwhile: by a concurrent login's rehash of this same password (two tabs), or by
  // a reset. Whatever is stored now decides.
  const current = await findUserById(db, user.id);
  return current && (await verifyPassword(current.password_hash, password)) ? current.password_hash : null;
}

let decoy: Promise<string> | undefined;

/**
 * Spends the same argon2 work as a real check when there is no account to check against,
 * so a login's timing does not tell whether the identifier exists.
 */
export async function burnPasswordCheck(password: string): Promise<void> {
  decoy ??= hashPassword(randomToken(16));
  await verifyPassword(await decoy, password);
}
