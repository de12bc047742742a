import type {
  PublicKeyCredentialCreationOptionsJSON,
  RegistrationResponseJSON,
  WebAuthnCredential,
} from '@simplewebauthn/server';
import type { CoreDeps } from '../deps.js';
import { isoNow } from '../lib/time.js';
import { identityErrors } from './errors.js';
import { alertUser, recordEvent } from './events.js';
import {
  cleanTransports,
  credentialDescriptor,
  expectations,
  openCeremony,
  PASSKEY_CEREMONY_TIMEOUT_MS,
  relyingParty,
  takeCeremony,
  userHandle,
  webauthn,
} from './passkeys-ceremony.js';
import {
  deleteUserPasskey,
  findPasskeyById,
  insertPasskey,
  listUserPasskeys,
  type PasskeyRow,
} from './passkeys.store.js';
import { presentPasskey } from './present.js';
import { codePoints } from './rules.js';
import type { UserRow } from './users.store.js';

/** identity-service.md §4.3: registering, listing and removing passkeys (decisions/0011). */

type Deps = Pick<CoreDeps, 'db' | 'clock' | 'config' | 'notifier' | 'log' | 'vault' | 'background'>;

export const PASSKEY_NAME_MAX = 100;
/** The name of a passkey registered with an empty (or blank) name. */
export const DEFAULT_PASSKEY_NAME = 'Passkey';

function passkeyName(name: string): string {
  const trimmed = name.trim();
  if (codePoints(trimmed) > PASSKEY_NAME_MAX) throw identityErrors.passkeyNameTooLong();
  return trimmed === '' ? DEFAULT_PASSKEY_NAME : trimmed;
}

/** begin-registration: creation options for the browser, and the ceremony's token. */
export async function beginPasskeyRegistration(
  deps: Deps,
  user: UserRow,
  name: string,
): Promise<{ options: PublicKeyCredentialCreationOptionsJSON; token: string }> {
  const finalName = passkeyName(name);
  const rp = relyingParty(deps.config);
  const { generateRegistrationOptions } = await webauthn();
  const userName = user.email ?? user.phone ?? user.id;
  const options = await generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userID: userHandle(user.id),
    userName,
    userDisplayName: user.display_name === '' ? userName : user.display_name,
    timeout: PASSKEY_CEREMONY_TIMEOUT_MS,
    attestationType: 'none',
    excludeCredentials: (await listUserPasskeys(deps.db, user.id)).map(credentialDescriptor),
    authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
  });
  const token = await openCeremony(deps, {
    kind: 'registration',
    userId: user.id,
    challenge: options.challenge,
    name: finalName,
  });
  return { options, token };
}

/** The credential the browser created, checked against the ceremony's challenge and our origin. */
async function verifyCreation(
  deps: Pick<CoreDeps, 'config' | 'log'>,
  userId: string,
  challenge: string,
  response: RegistrationResponseJSON,
): Promise<WebAuthnCredential> {
  // Outside the try: a library that cannot load is a server error, not a refused passkey.
  const { verifyRegistrationResponse } = await webauthn();
  try {
    const result = await verifyRegistrationResponse({ response, ...expectations(deps.config, challenge) });
    if (result.verified) return result.registrationInfo.credential;
  } catch {
    // The library's message quotes the challenge and origin: it is not logged.
  }
  deps.log.info({ event: 'passkey.registration_refused', user_id: userId }, 'passkey not verified');
  throw identityErrors.passkeyNotVerified();
}

/** finish-registration: verifies the new credential and stores it as the user's passkey. */
export async function finishPasskeyRegistration(
  deps: Deps,
  input: { user: UserRow; token: string; response: RegistrationResponseJSON; ip: string },
): Promise<PasskeyRow> {
  const { user } = input;
  const ceremony = await takeCeremony(deps, { kind: 'registration', token: input.token, userId: user.id });
  const credential = await verifyCreation(deps, user.id, ceremony.challenge, input.response);
  const now = isoNow(deps.clock);
  const passkey: PasskeyRow = {
    id: credential.id,
    user_id: user.id,
    name: ceremony.name ?? DEFAULT_PASSKEY_NAME,
    public_key: Buffer.from(credential.publicKey).toString('base64url'),
    counter: credential.counter,
    transports: JSON.stringify(cleanTransports(credential.transports)),
    created_at: now,
    last_used_at: now,
  };
  await deps.db.transaction().execute(async (tx) => {
    // The same authenticator credential cannot be registered twice (excludeCredentials asks the
    // browser not to; this is the check that holds whatever the client does).
    if (await findPasskeyById(tx, passkey.id)) throw identityErrors.passkeyNotVerified();
    await insertPasskey(tx, passkey);
    await recordEvent(tx, deps.clock, {
      userId: user.id,
      action: 'passkey_added',
      ip: input.ip,
      detail: passkey.name,
    });
  });
  deps.log.info({ event: 'passkey.added', user_id: user.id }, 'passkey added');
  alertUser(deps, user, {
    subject: 'passkey added',
    text: `A passkey ("${passkey.name}") was added to your account; it can now be used to sign in.`,
  });
  return passkey;
}

export async function listPasskeys(deps: Pick<CoreDeps, 'db'>, userId: string) {
  return (await listUserPasskeys(deps.db, userId)).map(presentPasskey);
}

/** DELETE /auth/passkeys/{id}: another user's passkey is "not found", like a missing one. */
export async function removePasskey(
  deps: Deps,
  input: { user: UserRow; id: string; ip: string },
): Promise<void> {
  const { user } = input;
  const removed = await deps.db.transaction().execute(async (tx) => {
    const row = await deleteUserPasskey(tx, user.id, input.id);
    if (!row) throw identityErrors.passkeyNotFound();
    await recordEvent(tx, deps.clock, {
      userId: user.id,
      action: 'passkey_removed',
      ip: input.ip,
      detail: row.name,
    });
    return row;
  });
  deps.log.info({ event: 'passkey.removed', user_id: user.id }, 'passkey removed');
  alertUser(deps, user, {
    subject: 'passkey removed',
    text: `A passkey ("${removed.name}") was removed from your account; it can no longer be used to sign in.`,
  });
}
