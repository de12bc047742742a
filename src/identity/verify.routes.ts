import type { CoreDeps } from '../deps.js';
import { defineRoute, type Route } from '../http/route.js';
import { codeBody, phoneBody } from './auth.schema.js';
import { checkVerificationCode, requestPhoneVerification, sendVerificationCode } from './codes.js';
import { requireSession } from './session.http.js';

type Deps = Pick<CoreDeps, 'db' | 'clock' | 'config' | 'notifier' | 'log' | 'vault' | 'background'>;

/** identity-service.md §4.1: email and phone verification codes. */
export function verifyRoutes(deps: Deps): Route[] {
  const session = requireSession(deps);
  return [
    defineRoute({
      method: 'POST',
      path: '/auth/verify-email/send',
      api: 'identity',
      limiter: 'otp-send',
      auth: session,
      handler: async ({ principal }) => {
        await sendVerificationCode(deps, principal.user, 'email');
        return { message: 'verification code sent' };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/verify-email/check',
      api: 'identity',
      auth: session,
      body: { kind: 'json', parse: codeBody },
      handler: async ({ principal, body, ip }) => {
        await checkVerificationCode(deps, principal.user.id, 'email', body.code, ip);
        return { message: 'email verified' };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/verify-phone/send',
      api: 'identity',
      limiter: 'otp-send',
      auth: session,
      body: { kind: 'json', parse: phoneBody },
      handler: async ({ principal, body }) => {
        await requestPhoneVerification(deps, principal.user.id, body.phone);
        return { message: 'verification code sent' };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/verify-phone/check',
      api: 'identity',
      auth: session,
      body: { kind: 'json', parse: codeBody },
      handler: async ({ principal, body, ip }) => {
        await checkVerificationCode(deps, principal.user.id, 'phone', body.code, ip);
        return { message: 'phone verified' };
      },
    }),
  ];
}
