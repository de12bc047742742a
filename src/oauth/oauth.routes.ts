import type { CoreDeps } from '../deps.js';
import { defineRoute, type Route } from '../http/route.js';
import { isAppError } from '../lib/errors.js';
import { optionalSession, requireSession } from '../identity/index.js';
import { requireBearer } from './bearer.http.js';
import { userinfoClaims } from './bearer.js';
import { listConnections, revokeConnection } from './connections.js';
import { discoveryDocument } from './discovery.js';
import { OAuthError } from './errors.js';
import { authorizeRedirect, submitConsent } from './flow.js';
import { consentBody, revokeBody } from './oauth.schema.js';
import type { Keyring } from './keys.js';
import { tokenEndpoint } from './token.js';

type Deps = Pick<CoreDeps, 'db' | 'clock' | 'config' | 'log' | 'commits'> & { keys: Keyring };

const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

/** Token-endpoint errors are raw `{error, error_description}`, never the envelope (§7). */
function tokenError(err: unknown) {
  if (err instanceof OAuthError) {
    return {
      status: err.status,
      body: { error: err.error, error_description: err.message },
      headers: { ...NO_STORE, ...err.headers },
    };
  }
  if (!isAppError(err)) {
    return {
      status: 500,
      body: { error: 'server_error', error_description: 'internal server error' },
      headers: NO_STORE,
    };
  }
  if (err.status === 429) {
    const body = { error: 'temporarily_unavailable', error_description: err.message };
    return { status: 429, body, headers: { ...NO_STORE, ...err.headers } };
  }
  // Body-level refusals (malformed, too large, not form-encoded) are the client's request errors.
  const status = err.status === 413 ? 413 : 400;
  return {
    status,
    body: { error: 'invalid_request', error_description: err.message },
    headers: { ...NO_STORE, ...err.headers },
  };
}

/** identity-service.md §4.6 and the connections rows of §4.7. */
export function oauthRoutes(deps: Deps): Route[] {
  const session = requireSession(deps);
  const maybeSession = optionalSession(deps);
  const bearer = requireBearer(deps);
  return [
    defineRoute({
      method: 'GET',
      path: '/.well-known/openid-configuration',
      api: 'identity',
      handler: () => ({
        raw: discoveryDocument(deps.config.publicBaseUrl),
        headers: { 'Cache-Control': 'public, max-age=3600' },
      }),
    }),
    defineRoute({
      method: 'GET',
      path: '/oauth/jwks',
      api: 'identity',
      handler: async () => ({
        raw: { keys: await deps.keys.published() },
        headers: { 'Cache-Control': 'public, max-age=300' },
      }),
    }),
    defineRoute({
      method: 'GET',
      path: '/oauth/authorize',
      api: 'identity',
      auth: maybeSession,
      handler: async ({ req, principal, ip }) => ({
        redirect: await authorizeRedirect(deps, new URLSearchParams(req.search), principal, ip),
        headers: { 'Cache-Control': 'no-store' },
      }),
    }),
    defineRoute({
      method: 'POST',
      path: '/oauth/consent',
      api: 'identity',
      auth: session,
      body: { kind: 'json', parse: consentBody },
      handler: async ({ principal, body, ip }) => ({
        data: { redirect_uri: await submitConsent(deps, principal, body, ip) },
      }),
    }),
    defineRoute({
      method: 'POST',
      path: '/oauth/token',
      api: 'identity',
      limiter: 'token',
      body: { kind: 'form', parse: (form) => form },
      renderError: tokenError,
      handler: async ({ req, body }) => ({
        raw: await tokenEndpoint(deps, { form: body, authorization: req.headers.authorization }),
        headers: NO_STORE,
      }),
    }),
    // OIDC Core §5.3: GET and POST alike, the token in the Authorization header only (RFC 6750
    // §2.2's form body is not read; docs/decisions/0005-oauth-provider.md, 2026-12-07).
    ...(['GET', 'POST'] as const).map((method) =>
      defineRoute({
        method,
        path: '/oauth/userinfo',
        api: 'identity',
        auth: bearer,
        handler: ({ principal }) => ({
          raw: userinfoClaims(principal),
          headers: { 'Cache-Control': 'no-store' },
        }),
      }),
    ),
    defineRoute({
      method: 'POST',
      path: '/oauth/revoke',
      api: 'identity',
      auth: session,
      body: { kind: 'json', parse: revokeBody },
      handler: async ({ principal, body, ip }) => {
        await revokeConnection(deps, principal.user.id, body.client_id, ip);
        return { message: 'connection revoked' };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/connections',
      api: 'identity',
      auth: session,
      handler: async ({ principal }) => ({ data: await listConnections(deps, principal.user.id) }),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/connections/:clientId',
      api: 'identity',
      auth: session,
      handler: async ({ principal, params, ip }) => {
        await revokeConnection(deps, principal.user.id, params.clientId ?? '', ip);
        return { message: 'connection revoked' };
      },
    }),
  ];
}
