import type { HttpRequest } from '../http/types.js';
import { AppError } from '../lib/errors.js';
import { verifyBearer, type BearerGrant } from './bearer.js';
import { oauthErrors } from './errors.js';
import type { OAuthDeps } from './token.js';

/** The token of an `Authorization: Bearer …` header, or undefined when there is none. */
export function bearerToken(req: HttpRequest): string | undefined {
  const header = req.headers.authorization;
  if (header === undefined) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? '';
}

const challenge = (error?: string) =>
  error === undefined ? 'Bearer realm="svc-accounts"' : `Bearer realm="svc-accounts", error="${error}"`;

/** 401 envelopes: `not authenticated` without a token, `invalid or expired access token` otherwise. */
export function requireBearer(deps: Pick<OAuthDeps, 'db' | 'clock' | 'config' | 'keys'>) {
  return async (req: HttpRequest): Promise<BearerGrant> => {
    const token = bearerToken(req);
    if (token === undefined) {
      const e = oauthErrors.bearerMissing();
      throw new AppError(e.code, e.status, e.message, { headers: { 'WWW-Authenticate': challenge() } });
    }
    const grant = token === '' ? null : await verifyBearer(deps, token);
    if (!grant) {
      const e = oauthErrors.bearerInvalid();
      throw new AppError(e.code, e.status, e.message, {
        headers: { 'WWW-Authenticate': challenge('invalid_token') },
      });
    }
    return grant;
  };
}
