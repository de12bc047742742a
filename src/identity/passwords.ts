import argon2 from 'argon2';
import { randomToken } from '../lib/crypto.js';

/** OWASP's argon2id baseline: 19 MiB, 2 iterations, 1 lane. */
export const ARGON2_PARAMS = {
  type: argon2.argon2id,
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
} as const;

export const hashPassword = (password: string): Promise<string> => argon2.hash(password, ARGON2_PARAMS);

export async function verifyPassword(hash: string, password: string): Promise<boolean> {
  try {
    return await argon2.verify(hash, password);
  } catch {
    return false; // a malformed stored hash never matches
  }
}

/** True when the stored hash was made with other parameters and should be redone on login. */
export const needsRehash = (hash: string): boolean => argon2.needsRehash(hash, ARGON2_PARAMS);

let decoy: Promise<string> | undefined;

/**
 * Spends the same argon2 work as a real check when there is no account to check against,
 * so a login's timing does not tell whether the identifier exists.
 */
export async function burnPasswordCheck(password: string): Promise<void> {
  decoy ??= hashPassword(randomToken(16));
  await verifyPassword(await decoy, password);
}
