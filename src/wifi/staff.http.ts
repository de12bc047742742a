import type { ServerResponse } from 'node:http';
import type { StaffRole } from '../db/tables/identity.js';
import { clearCookieHeader, readCookie, setCookieHeader } from '../http/cookies.js';
import type { HttpRequest } from '../http/types.js';
import type { WifiDeps } from './deps.js';
import { wifiErrors } from './errors.js';
import { ADMIN_SESSION_SECONDS, authenticateAdmin, mayAct, type StaffPrincipal } from './staff.js';

/** The HTTP side of staff sessions: the admin_session cookie and the role guard admin routes declare. */

export const ADMIN_COOKIE = 'admin_session';

type Deps = Pick<WifiDeps, 'db' | 'clock' | 'config'>;

const secure = (deps: Pick<WifiDeps, 'config'>): boolean =>
  deps.config.adminOrigin?.startsWith('https:') ?? false;

export const adminCookie = (deps: Pick<WifiDeps, 'config'>, token: string): string =>
  setCookieHeader(ADMIN_COOKIE, token, { maxAgeSeconds: ADMIN_SESSION_SECONDS, secure: secure(deps) });

export const clearAdminCookie = (deps: Pick<WifiDeps, 'config'>): string =>
  clearCookieHeader(ADMIN_COOKIE, { secure: secure(deps) });

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Staff routes: 401 `not authenticated` without a live admin session, 403 when the role may
 * not do this. Changes must come from the admin UI's origin (ADMIN_ORIGIN or this box's own).
 */
export function requireStaff(deps: Deps, needed: StaffRole) {
  const own = new URL(deps.config.publicBaseUrl).origin;
  return async (req: HttpRequest, res: ServerResponse): Promise<StaffPrincipal> => {
    // Who first (DESIGN §4.4: an unauthenticated call is 401 whatever it carries), then where from.
    const token = readCookie(req, ADMIN_COOKIE);
    const principal = token ? await authenticateAdmin(deps, token) : null;
    if (!principal) {
      if (token) res.setHeader('Set-Cookie', clearAdminCookie(deps));
      throw wifiErrors.notAuthenticated();
    }
    const origin = req.headers.origin;
    if (
      !SAFE.has(req.method) &&
      origin !== undefined &&
      origin !== own &&
      origin !== deps.config.adminOrigin
    ) {
      throw wifiErrors.originNotAllowed();
    }
    if (!mayAct(principal.role, needed)) throw wifiErrors.forbidden();
    return principal;
  };
}
