import { hash, randomBytes, randomInt, randomUUID, timingSafeEqual } from 'node:crypto';

/** Random bytes as base64url: `randomToken(32)` gives 43 characters. */
export const randomToken = (bytes = 32): string => randomBytes(bytes).toString('base64url');

/** Random bytes as lower-case hex: `randomHex(32)` gives 64 characters. */
export const randomHex = (bytes = 32): string => randomBytes(bytes).toString('hex');

export const uuid = (): string => randomUUID();

/** A string of `length` characters drawn uniformly from `alphabet` (crypto.randomInt, no modulo bias). */
export function randomString(alphabet: string, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet.charAt(randomInt(alphabet.length));
  return out;
}

/** Numeric code of `digits` digits, leading zeros kept. */
export const randomDigits = (digits: number): string => randomString('0123456789', digits);

export const sha256Hex = (input: string | Buffer): string => hash('sha256', input, 'hex');

/**
 * Constant-time string comparison. Both sides are hashed first so the comparison never leaks
 * the length of the secret and timingSafeEqual always gets equal-length buffers.
 */
export function safeEqual(a: string, b: string): boolean {
  // One-shot hashes: every RADIUS PAP login compares here.
  return timingSafeEqual(hash('sha256', a, 'buffer'), hash('sha256', b, 'buffer'));
}
