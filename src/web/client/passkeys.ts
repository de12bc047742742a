import { api, type ApiResult } from './api.js';

/**
 * The WebAuthn ceremonies of identity-service.md §4.3, with the browser's own JSON converters
 * (Chromium 129+ and current WebViews); without them the passkey buttons stay hidden.
 */
const TOKEN = 'X-Passkey-Token';

export const passkeysSupported = (): boolean =>
  typeof PublicKeyCredential !== 'undefined' &&
  typeof PublicKeyCredential.parseRequestOptionsFromJSON === 'function' &&
  typeof PublicKeyCredential.parseCreationOptionsFromJSON === 'function';

/** begin → authenticator → finish; 'cancelled' when the person (or the browser) said no. */
async function ceremony(
  begin: string,
  body: unknown,
  ask: (options: unknown) => Promise<Credential | null>,
  finish: string,
): Promise<ApiResult | 'cancelled'> {
  const started = await api('POST', begin, body);
  if (started.status !== 200) return started;
  let credential: Credential | null;
  try {
    credential = await ask((started.body as { data: unknown }).data);
  } catch {
    return 'cancelled';
  }
  if (!(credential instanceof PublicKeyCredential)) return 'cancelled';
  return api('POST', finish, credential.toJSON(), { [TOKEN]: started.headers.get(TOKEN) ?? '' });
}

export const passkeyLogin = (identifier: string): Promise<ApiResult | 'cancelled'> =>
  ceremony(
    '/auth/passkeys/login/begin',
    { identifier },
    (options) =>
      navigator.credentials.get({
        publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(
          options as PublicKeyCredentialRequestOptionsJSON,
        ),
      }),
    '/auth/passkeys/login/finish',
  );

export const registerPasskey = (name: string): Promise<ApiResult | 'cancelled'> =>
  ceremony(
    '/auth/passkeys/begin-registration',
    { name },
    (options) =>
      navigator.credentials.create({
        publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(
          options as PublicKeyCredentialCreationOptionsJSON,
        ),
      }),
    '/auth/passkeys/finish-registration',
  );
