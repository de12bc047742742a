import type { CoreDeps } from '../deps.js';
import { defineRoute, type Route } from '../http/route.js';
import { codeBody, mfaVerifyBody } from './auth.schema.js';
import { finishMfaLogin } from './login.js';
import { disableTotp, enableTotp, setupTotp } from './mfa.js';
import { presentUser } from './present.js';
import { requireSession, sessionCookie } from './session.http.js';

type Deps = Pick<CoreDeps, 'db' | 'clock' | 'config' | 'notifier' | 'log' | 'vault' | 'background'>;

/** identity-service.md §4.2: TOTP. */
export function mfaRoutes(deps: Deps): Route[] {
  const session = requireSession(deps);
  return [
    defineRoute({
      method: 'POST',
      path: '/auth/mfa/setup',
      api: 'identity',
      auth: session,
      handler: async ({ principal }) => ({
        data: await setupTotp(deps, principal.user.id),
        headers: { 'Cache-Control': 'no-store' },
      }),
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/mfa/enable',
      api: 'identity',
      auth: session,
      body: { kind: 'json', parse: codeBody },
      handler: async ({ principal, body, ip }) => ({
        message: 'mfa enabled',
        data: await enableTotp(deps, principal.user.id, body.code, ip),
        headers: { 'Cache-Control': 'no-store' },
      }),
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/mfa/disable',
      api: 'identity',
      auth: session,
      body: { kind: 'json', parse: codeBody },
      handler: async ({ principal, body, ip }) => {
        await disableTotp(deps, principal.user.id, body.code, ip);
        return { message: 'mfa disabled' };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/mfa/verify',
      api: 'identity',
      body: { kind: 'json', parse: mfaVerifyBody },
      handler: async ({ body, ip }) => {
        const { user, session: created } = await finishMfaLogin(deps, { ...body, ip });
        return { data: presentUser(user), headers: { 'Set-Cookie': sessionCookie(deps, created.token) } };
      },
    }),
  ];
}
