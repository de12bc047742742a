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

/** The payload of a valid, unexpired RS256 token from `issuer`, or null. */
export function verifyJwt(token: string, options: VerifyOptions): Record<string, unknown> | null {
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
  if (!payload || payload.iss !== options.issuer) return null;
  if (typeof payload.exp !== 'number' || payload.exp <= options.now) return null;
  if (typeof payload.nbf === 'number' && payload.nbf > options.now + 60) return null;
  return payload;
}
