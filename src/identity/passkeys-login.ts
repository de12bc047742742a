import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/server';
import type { CoreDeps } from '../deps.js';
import { isoNow } from '../lib/time.js';
import { identityErrors } from './errors.js';
import { signIn } from './login.js';
import {
  credentialDescriptor,
  expectations,
  openCeremony,
  PASSKEY_CEREMONY_TIMEOUT_MS,
  relyingParty,
  takeCeremony,
  userHandle,
  webauthn,
} from './passkeys-ceremony.js';
import { findPasskeyById, listUserPasskeys, recordPasskeyUse, type PasskeyRow } from './passkeys.store.js';
import type { NewSession } from './sessions.js';
import { findUserById, findUserByIdentifier, type UserRow } from './users.store.js';

/**
 * identity-service.md §4.3: signing in with a passkey. A verified assertion replaces the
 * password and TOTP; the sign-in itself ends in signIn like every other (decisions/0011).
 */

type Deps = Pick<CoreDeps, 'db' | 'clock' | 'config' | 'notifier' | 'log' | 'vault' | 'background'>;

/** login/begin: request options listing the account's passkeys, and the ceremony's token. */
export async function beginPasskeyLogin(
  deps: Deps,
  identifier: string,
): Promise<{ options: PublicKeyCredentialRequestOptionsJSON; token: string }> {
  const user =
    identifier === ''
      ? undefined
      : await findUserByIdentifier(deps.db, identifier, deps.config.defaultCountryCode);
  const passkeys = user ? await listUserPasskeys(deps.db, user.id) : [];
  if (!user || passkeys.length === 0) throw identityErrors.passkeyLoginUnavailable();
  const { generateAuthenticationOptions } = await webauthn();
  const options = await generateAuthenticationOptions({
    rpID: relyingParty(deps.config).id,
    allowCredentials: passkeys.map(credentialDescriptor),
    userVerification: 'preferred',
    timeout: PASSKEY_CEREMONY_TIMEOUT_MS,
  });
  const token = await openCeremony(deps, { kind: 'login', userId: user.id, challenge: options.challenge });
  return { options, token };
}

type Refusal = 'unknown_credential' | 'counter_rollback' | 'bad_assertion' | 'raced';

function refuse(deps: Pick<CoreDeps, 'log'>, userId: string, reason: Refusal): never {
  const line = { event: 'passkey.login_refused', user_id: userId, reason };
  // A counter that goes backwards can mean a cloned authenticator: worth an operator's look.
  if (reason === 'counter_rollback') deps.log.warn(line, 'passkey counter went backwards');
  else deps.log.info(line, 'passkey login refused');
  throw identityErrors.passkeyLoginFailed();
}

/**
 * The passkey the assertion names, when it belongs to the account the ceremony was begun for
 * (and, when the authenticator says whose it is, to that same account).
 */
async function ownedPasskey(
  deps: Pick<CoreDeps, 'db'>,
  userId: string,
  response: AuthenticationResponseJSON,
): Promise<{ user: UserRow; passkey: PasskeyRow } | null> {
  const passkey = await findPasskeyById(deps.db, response.id);
  const user = await findUserById(deps.db, userId);
  const handle = response.response.userHandle;
  if (!passkey || !user || passkey.user_id !== user.id) return null;
  if (handle !== undefined && handle !== Buffer.from(userHandle(user.id)).toString('base64url')) return null;
  return { user, passkey };
}

/**
 * WebAuthn §7.2 (the signCount step): when either the stored or the new signature counter is non-zero the
 * authenticator counts, and a new value that is not higher means a replayed or cloned one.
 */
export const counterWentBack = (stored: number, seen: number): boolean =>
  (stored > 0 || seen > 0) && seen <= stored;

/**
 * The assertion checked against the challenge, our origin and the stored key: the counter it
 * carries, or null. The library is given counter 0 so it checks only the signature; the counter
 * rule is ours (counterWentBack), applied once the signature is known good, so only a genuine
 * authenticator's assertion can raise the cloned-authenticator warning.
 */
async function verifiedCounter(
  config: CoreDeps['config'],
  challenge: string,
  passkey: PasskeyRow,
  response: AuthenticationResponseJSON,
): Promise<number | null> {
  // Outside the try: a library that cannot load is a server error, not a refused assertion.
  const { verifyAuthenticationResponse } = await webauthn();
  try {
    const result = await verifyAuthenticationResponse({
      response,
      ...expectations(config, challenge),
      credential: {
        id: passkey.id,
        publicKey: new Uint8Array(Buffer.from(passkey.public_key, 'base64url')),
        counter: 0,
      },
    });
    return result.verified ? result.authenticationInfo.newCounter : null;
  } catch {
    // The library's message quotes the challenge and origin: it is not logged.
    return null;
  }
}

/** login/finish: a verified assertion signs the account in (no TOTP step). */
export async function finishPasskeyLogin(
  deps: Deps,
  input: { token: string; response: AuthenticationResponseJSON; ip: string },
): Promise<{ user: UserRow; session: NewSession }> {
  const ceremony = await takeCeremony(deps, { kind: 'login', token: input.token });
  const owned = await ownedPasskey(deps, ceremony.user_id, input.response);
  if (!owned) return refuse(deps, ceremony.user_id, 'unknown_credential');
  const { user, passkey } = owned;

  const newCounter = await verifiedCounter(deps.config, ceremony.challenge, passkey, input.response);
  if (newCounter === null) return refuse(deps, user.id, 'bad_assertion');
  if (counterWentBack(passkey.counter, newCounter)) return refuse(deps, user.id, 'counter_rollback');

  const recorded = await recordPasskeyUse(deps.db, {
    id: passkey.id,
    seenCounter: passkey.counter,
    newCounter,
    usedAt: isoNow(deps.clock),
  });
  if (!recorded) return refuse(deps, user.id, 'raced');
  return { user, session: await signIn(deps, user, { ip: input.ip, method: 'passkey' }) };
}
