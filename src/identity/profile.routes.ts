import type { CoreDeps } from '../deps.js';
import { defineRoute, type Route } from '../http/route.js';
import { profilePatchBody } from './auth.schema.js';
import { securityEvents } from './events.js';
import type { BearerVerifier } from './ports.js';
import { clearSessionCookie, requireSession, sessionOrBearer } from './session.http.js';
import { listSessions, revokeSession } from './sessions.js';
import { getProfile, updateProfile } from './users.js';

type Deps = Pick<CoreDeps, 'db' | 'clock' | 'config' | 'notifier' | 'log' | 'vault' | 'background'> & {
  bearer: BearerVerifier;
};

/** identity-service.md §4.4 and the profile and sessions rows of §4.7. */
export function profileRoutes(deps: Deps): Route[] {
  const session = requireSession(deps);
  // GET and PATCH alike take any valid bearer token (§4.7, §5; docs/decisions/0005-oauth-provider.md).
  const sessionOrToken = sessionOrBearer(deps);
  return [
    defineRoute({
      method: 'GET',
      path: '/profile',
      api: 'identity',
      auth: sessionOrToken,
      handler: async ({ principal }) => ({ data: await getProfile(deps, principal.userId) }),
    }),
    defineRoute({
      method: 'PATCH',
      path: '/profile',
      api: 'identity',
      auth: sessionOrToken,
      body: { kind: 'json', parse: profilePatchBody },
      handler: async ({ principal, body }) => ({ data: await updateProfile(deps, principal.userId, body) }),
    }),
    defineRoute({
      method: 'GET',
      path: '/auth/security-events',
      api: 'identity',
      auth: session,
      handler: async ({ principal }) => ({ data: await securityEvents(deps, principal.user.id) }),
    }),
    defineRoute({
      method: 'GET',
      path: '/sessions',
      api: 'identity',
      auth: session,
      handler: async ({ principal }) => ({
        data: await listSessions(deps, principal.user.id, principal.sessionId),
      }),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/sessions/:id',
      api: 'identity',
      auth: session,
      handler: async ({ principal, params }) => {
        const id = params.id ?? '';
        await revokeSession(deps, principal.user.id, id);
        // Revoking the session this request came with is a logout.
        return {
          message: 'session revoked',
          ...(id === principal.sessionId ? { headers: { 'Set-Cookie': clearSessionCookie(deps) } } : {}),
        };
      },
    }),
  ];
}
