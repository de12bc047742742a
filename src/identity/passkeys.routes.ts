import type { ServerResponse } from 'node:http';
import type { CoreDeps } from '../deps.js';
import { defineRoute, type Route } from '../http/route.js';
import type { HttpRequest } from '../http/types.js';
import { identityErrors } from './errors.js';
import { beginPasskeyLogin, finishPasskeyLogin } from './passkeys-login.js';
import {
  authenticationResponseBody,
  passkeyLoginBeginBody,
  passkeyNameBody,
  registrationResponseBody,
} from './passkeys.schema.js';
import {
  beginPasskeyRegistration,
  finishPasskeyRegistration,
  listPasskeys,
  removePasskey,
} from './passkeys.js';
import { presentUser } from './present.js';
import { requireSession, sessionCookie } from './session.http.js';

type Deps = Pick<CoreDeps, 'db' | 'clock' | 'config' | 'notifier' | 'log' | 'vault' | 'background'>;

/** Ties a finish call to its begin call (identity-service.md §4.3). */
export const PASSKEY_TOKEN_HEADER = 'X-Passkey-Token';

/** The token a finish call must carry: 400 when it is missing, before the body is read. */
function passkeyToken(req: HttpRequest): string {
  const value = req.headers['x-passkey-token'];
  const token = typeof value === 'string' ? value.trim() : '';
  if (token === '') throw identityErrors.passkeyTokenMissing();
  return token;
}

/** A begin answer: the options in the envelope, the token in the header, nothing cached. */
const begun = (started: { options: unknown; token: string }) => ({
  data: started.options,
  headers: { [PASSKEY_TOKEN_HEADER]: started.token, 'Cache-Control': 'no-store' },
});

/** identity-service.md §4.3: passkeys (WebAuthn). */
export function passkeyRoutes(deps: Deps): Route[] {
  const session = requireSession(deps);
  return [
    defineRoute({
      method: 'POST',
      path: '/auth/passkeys/begin-registration',
      api: 'identity',
      auth: session,
      body: { kind: 'json', parse: passkeyNameBody },
      handler: async ({ principal, body }) =>
        begun(await beginPasskeyRegistration(deps, principal.user, body.name)),
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/passkeys/finish-registration',
      api: 'identity',
      auth: async (req: HttpRequest, res: ServerResponse) => ({
        ...(await session(req, res)),
        token: passkeyToken(req),
      }),
      body: { kind: 'json', parse: registrationResponseBody },
      handler: async ({ principal, body, ip }) => {
        const passkey = await finishPasskeyRegistration(deps, {
          user: principal.user,
          token: principal.token,
          response: body,
          ip,
        });
        return { status: 201, raw: { id: passkey.id, created_at: passkey.created_at } };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/auth/passkeys',
      api: 'identity',
      auth: session,
      handler: async ({ principal }) => ({ data: await listPasskeys(deps, principal.user.id) }),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/auth/passkeys/:id',
      api: 'identity',
      auth: session,
      handler: async ({ principal, params, ip }) => {
        await removePasskey(deps, { user: principal.user, id: params.id ?? '', ip });
        return { message: 'passkey removed' };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/passkeys/login/begin',
      api: 'identity',
      limiter: 'otp-send',
      body: { kind: 'json', parse: passkeyLoginBeginBody },
      handler: async ({ body }) => begun(await beginPasskeyLogin(deps, body.identifier)),
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/passkeys/login/finish',
      api: 'identity',
      auth: passkeyToken,
      body: { kind: 'json', parse: authenticationResponseBody },
      handler: async ({ principal: token, body, ip }) => {
        const { user, session: created } = await finishPasskeyLogin(deps, { token, response: body, ip });
        return { data: presentUser(user), headers: { 'Set-Cookie': sessionCookie(deps, created.token) } };
      },
    }),
  ];
}
