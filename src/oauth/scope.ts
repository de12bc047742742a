import { createHash } from 'node:crypto';

/** "openid  email" → ['openid', 'email'] (deduplicated, order kept). */
export const parseScope = (scope: string): string[] => [...new Set(scope.split(' ').filter(Boolean))];

export const isSubset = (wanted: readonly string[], granted: readonly string[]): boolean =>
  wanted.every((s) => granted.includes(s));

/** Scopes joined in their canonical order so equal grants store equal strings. */
export const joinScope = (scopes: readonly string[], order: readonly string[]): string =>
  order.filter((s) => scopes.includes(s)).join(' ');

/** RFC 7636 code_verifier: 43-128 unreserved characters. */
export const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;
/** An S256 challenge is the base64url of 32 bytes: 43 characters. */
export const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export const s256 = (verifier: string): string =>
  createHash('sha256').update(verifier, 'ascii').digest('base64url');
