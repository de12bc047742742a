import type { ServerResponse } from 'node:http';
import type { CoreDeps } from '../deps.js';
import { clearCookieHeader, readCookie, setCookieHeader } from '../http/cookies.js';
import type { HttpRequest } from '../http/types.js';
import { identityErrors } from './errors.js';
import type { BearerVerifier } from './ports.js';
import { authenticateSession, SESSION_COOKIE, SESSION_TTL_SECONDS } from './sessions.js';
import type { UserRow } from './users.store.js';

/** The HTTP side of browser sessions: the svc_session cookie and the guard routes declare. */

export interface SessionPrincipal {
  user: UserRow;
  sessionId: string;
  /** When this session signed in (ISO-8601). */
  authTime: string;
}

type Deps = Pick<CoreDeps, 'db' | 'clock' | 'config'>;

const secure = (deps: Pick<CoreDeps, 'config'>): boolean => deps.config.publicBaseUrl.startsWith('https:');

export const sessionCookie = (deps: Pick<CoreDeps, 'config'>, token: string): string =>
  setCookieHeader(SESSION_COOKIE, token, { maxAgeSeconds: SESSION_TTL_SECONDS, secure: secure(deps) });

export const clearSessionCookie = (deps: Pick<CoreDeps, 'config'>): string =>
  clearCookieHeader(SESSION_COOKIE, { secure: secure(deps) });

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Cookie-authenticated changes must come from our own pages or an allowed origin: a request
 * that carries an Origin header naming any other site is refused (403).
 */
export function checkOrigin(deps: Pick<CoreDeps, 'config'>, req: HttpRequest): void {
  if (SAFE_METHODS.has(req.method)) return;
  const origin = req.headers.origin;
  if (origin === undefined) return;
  const own = new URL(deps.config.publicBaseUrl).origin;
  if (origin !== own && !deps.config.corsAllowedOrigins.includes(origin))
    throw identityErrors.originNotAllowed();
}

/** The session guard: 401 `not authenticated` without a cookie, `session expired or invalid` with a bad one. */
export function requireSession(deps: Deps) {
  return async (req: HttpRequest, res: ServerResponse): Promise<SessionPrincipal> => {
    // Who first (no cookie is 401 `not authenticated` whatever the request carries), then where from.
    const token = readCookie(req, SESSION_COOKIE);
    if (token === undefined || token === '') throw identityErrors.notAuthenticated();
    const session = await authenticateSession(deps, token);
    if (!session) {
      res.setHeader('Set-Cookie', clearSessionCookie(deps));
      throw identityErrors.sessionInvalid();
    }
    checkOrigin(deps, req);
    // Sliding lifetime: when the server extended the session, the browser's cookie is renewed too.
    if (session.extended) res.setHeader('Set-Cookie', sessionCookie(deps, token));
    return { user: session.user, sessionId: session.sessionId, authTime: session.authTime };
  };
}

/** The signed-in user if there is one (pages and /oauth/authorize decide what to do without). */
export function optionalSession(deps: Deps) {
  return async (req: HttpRequest, res: ServerResponse): Promise<SessionPrincipal | null> => {
    const token = readCookie(req, SESSION_COOKIE);
    if (!token) return null;
    const session = await authenticateSession(deps, token);
    if (!session) return null;
    if (session.extended) res.setHeader('Set-Cookie', sessionCookie(deps, token));
    return { user: session.user, sessionId: session.sessionId, authTime: session.authTime };
  };
}

/**
 * GET/PATCH /profile: a bearer access token of any scope (identity-service.md §4.7 and §5 say
 * "session or bearer" and nothing more; `invalid or expired access token` when it does not
 * verify) or, without an Authorization header, the browser session.
 */
export function sessionOrBearer(deps: Deps & { bearer: BearerVerifier }) {
  const session = requireSession(deps);
  return async (req: HttpRequest, res: ServerResponse): Promise<{ userId: string }> => {
    const header = req.headers.authorization;
    if (header === undefined) return { userId: (await session(req, res)).user.id };
    const token = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
    const grant = token === undefined ? null : await deps.bearer(token);
    if (!grant) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="svc-accounts", error="invalid_token"');
      throw identityErrors.bearerInvalid();
    }
    return { userId: grant.userId };
  };
}
