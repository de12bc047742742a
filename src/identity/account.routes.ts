import type { CoreDeps } from '../deps.js';
import { defineRoute, type Route } from '../http/route.js';
import { forgotBody, loginBody, registerBody, resetBody } from './auth.schema.js';
import { passwordLogin } from './login.js';
import { presentUser } from './present.js';
import { resetPassword, startPasswordReset } from './reset.js';
import { clearSessionCookie, requireSession, sessionCookie } from './session.http.js';
import { endSession } from './sessions.js';
import { deleteAccount, register } from './users.js';

type Deps = Pick<CoreDeps, 'db' | 'clock' | 'config' | 'notifier' | 'log' | 'vault' | 'background'>;

/** identity-service.md §4.1: account lifecycle. */
export function accountRoutes(deps: Deps): Route[] {
  const session = requireSession(deps);
  return [
    defineRoute({
      method: 'POST',
      path: '/auth/register',
      api: 'identity',
      limiter: 'register',
      body: { kind: 'json', parse: registerBody },
      handler: async ({ body, ip }) => {
        const { user, session: created } = await register(deps, { ...body, ip });
        return {
          status: 201,
          data: presentUser(user),
          headers: { 'Set-Cookie': sessionCookie(deps, created.token) },
        };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/login',
      api: 'identity',
      limiter: 'login',
      body: { kind: 'json', parse: loginBody },
      handler: async ({ body, ip }) => {
        const outcome = await passwordLogin(deps, { ...body, ip });
        if (outcome.kind === 'mfa_required') {
          return { data: { mfa_required: true, mfa_token: outcome.mfaToken, user_id: outcome.user.id } };
        }
        return {
          data: presentUser(outcome.user),
          headers: { 'Set-Cookie': sessionCookie(deps, outcome.session.token) },
        };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/auth/me',
      api: 'identity',
      auth: session,
      handler: ({ principal }) => ({ data: presentUser(principal.user) }),
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/logout',
      api: 'identity',
      auth: session,
      handler: async ({ principal }) => {
        await endSession(deps, principal.sessionId);
        return { message: 'logged out', headers: { 'Set-Cookie': clearSessionCookie(deps) } };
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/auth/account',
      api: 'identity',
      auth: session,
      handler: async ({ principal }) => {
        await deleteAccount(deps, principal.user.id);
        return { message: 'account deleted', headers: { 'Set-Cookie': clearSessionCookie(deps) } };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/forgot-password',
      api: 'identity',
      body: { kind: 'json', parse: forgotBody },
      handler: ({ body }) => {
        startPasswordReset(deps, body.identifier);
        return { message: 'if an account exists, a reset link has been sent' };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/reset-password',
      api: 'identity',
      body: { kind: 'json', parse: resetBody },
      handler: async ({ body, ip }) => {
        await resetPassword(deps, { ...body, ip });
        return { message: 'password reset successfully' };
      },
    }),
  ];
}
