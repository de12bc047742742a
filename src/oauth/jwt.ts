import { sign as rsaSign, verify as rsaVerify, type KeyObject } from 'node:crypto';

/**
 * RS256 compact JWS with node:crypto: jose's SignJWT/jwtVerify are 2-5x slower on the token and
 * userinfo hot paths (measured in bench/oauth). Only RS256 with a known `kid` is ever accepted,
 * so there is no algorithm confusion; tests pin interoperability with jose in both directions.
 */

const b64json = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

export interface SigningKey {
  kid: string;
  privateKey: KeyObject;
}

/** Signs on libuv's thread pool so the event loop keeps serving while RSA works. */
export function signJwt(
  payload: Record<string, unknown>,
  key: SigningKey,
  typ: 'JWT' | 'at+jwt',
): Promise<string> {
  const input = `${b64json({ alg: 'RS256', typ, kid: key.kid })}.${b64json(payload)}`;
  return new Promise((resolve, reject) => {
    rsaSign('sha256', Buffer.from(input), key.privateKey, (err, signature) => {
      if (err) reject(err);
      else resolve(`${input}.${signature.toString('base64url')}`);
    });
  });
}

export interface VerifyOptions {
  /** Public key for a kid, or undefined when that kid is not (or no longer) published. */
  keyFor: (kid: string) => KeyObject | undefined;
  typ: 'JWT' | 'at+jwt';
  issuer: string;
  /** Seconds since the epoch, from the injected clock. */
  now: number;
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;

function decodeJson(part: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/**
 * Tokens whose signature checked out, by their exact text, with what checked it. An app calls
 * userinfo (or our APIs) with the same access token many times in the token's life, and the RSA
 * verify is most of such a request's CPU (bench/oauth.ts, docs/decisions/0048). A hit is taken
 * only while the very key object that verified the token is still the one published for its kid
 * (a rotation with --retire-old ends it at once; another object checks anew), and the claims (issuer, expiry) are checked on
 * every call. The key is the whole token, so a token changed in any character is verified anew.
 * Bounded: past VERIFIED_MAX entries the oldest goes.
 */
const VERIFIED_MAX = 2048;
const verified = new Map<
  string,
  { kid: string; typ: unknown; key: KeyObject; payload: Record<string, unknown> }
>();

/** How many verified tokens are remembered (tests: the bound holds). */
export const rememberedTokens = (): number => verified.size;

/** The payload of a valid, unexpired RS256 token from `issuer`, or null. */
export function verifyJwt(token: string, options: VerifyOptions): Record<string, unknown> | null {
  const hit = verified.get(token);
  // Another key object for the kid (another keyring, a reloaded key) checks the token anew.
  if (hit !== undefined && options.keyFor(hit.kid) === hit.key) {
    if (hit.typ !== options.typ) return null;
    return claimsHold(hit.payload, options) ? hit.payload : null;
  }
  const parts = token.split('.');
  if (parts.length !== 3 || !parts.every((p) => BASE64URL.test(p))) return null;
  const [headerPart = '', payloadPart = '', signaturePart = ''] = parts;
  const header = decodeJson(headerPart);
  if (header?.alg !== 'RS256' || header.typ !== options.typ || typeof header.kid !== 'string') return null;
  const key = options.keyFor(header.kid);
  if (!key) return null;
  const valid = rsaVerify(
    'sha256',
    Buffer.from(`${headerPart}.${payloadPart}`),
    key,
    Buffer.from(signaturePart, 'base64url'),
  );
  if (!valid) return null;
  const payload = decodeJson(payloadPart);
  if (!payload || !claimsHold(payload, options)) return null;
  if (verified.size >= VERIFIED_MAX) verified.delete(verified.keys().next().value as string);
  verified.set(token, { kid: header.kid, typ: header.typ, key, payload: Object.freeze(payload) });
  return payload;
}

/** Issued by `issuer`, not expired, not meant for later (a minute of skew allowed). */
function claimsHold(payload: Record<string, unknown>, options: VerifyOptions): boolean {
  if (payload.iss !== options.issuer) return false;
  if (typeof payload.exp !== 'number' || payload.exp <= options.now) return false;
  return !(typeof payload.nbf === 'number' && payload.nbf > options.now + 60);
}
