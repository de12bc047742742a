import type { CoreDeps } from '../deps.js';
import { isoNow } from '../lib/time.js';
import { identityErrors } from './errors.js';
import { alertUser, isNewLoginAddress, recordEvent } from './events.js';
import { createMfaChallenge, passMfaChallenge } from './mfa.js';
import { burnPasswordCheck, provenPasswordHash, verifyPassword } from './passwords.js';
import { createSession, type NewSession } from './sessions.js';
import { findUserByIdentifier, hasPasswordHash, type UserRow } from './users.store.js';

type Deps = Pick<CoreDeps, 'db' | 'clock' | 'config' | 'notifier' | 'log' | 'vault' | 'background'>;

export type LoginOutcome =
  | { kind: 'signed_in'; user: UserRow; session: NewSession }
  | { kind: 'mfa_required'; user: UserRow; mfaToken: string };

/**
 * Every sign-in ends here (password, after TOTP where enabled; passkey; social): a new session,
 * the `login` event, and a mail when the address is one the user never used (to register or
 * sign in).
 */
export async function signIn(
  deps: Deps,
  user: UserRow,
  input: {
    ip: string;
    deviceLabel?: string | null;
    method: string;
    /** A password sign-in: the hash it verified, which must still be the user's (else `changed`). */
    proof?: { passwordHash: string; changed: () => Error };
  },
): Promise<NewSession> {
  const { session, newAddress } = await deps.db.transaction().execute(async (tx) => {
    // A reset committed after the password was checked has revoked every session: this one too.
    if (input.proof && !(await hasPasswordHash(tx, user.id, input.proof.passwordHash)))
      throw input.proof.changed();
    const fresh = await isNewLoginAddress(tx, user, input.ip);
    const created = await createSession(tx, deps.clock, {
      userId: user.id,
      ip: input.ip,
      deviceLabel: input.deviceLabel ?? null,
    });
    await recordEvent(tx, deps.clock, {
      userId: user.id,
      action: 'login',
      ip: input.ip,
      detail: input.method,
    });
    return { session: created, newAddress: fresh };
  });
  if (newAddress) {
    alertUser(deps, user, {
      subject: 'new sign-in',
      text: `Your account was signed in to from a new address (${input.ip}) at ${isoNow(deps.clock)}.`,
    });
  }
  return session;
}

/** POST /auth/login: a session, or the MFA challenge when TOTP is on (no session yet). */
export async function passwordLogin(
  deps: Deps,
  input: { identifier: string; password: string; ip: string },
): Promise<LoginOutcome> {
  const user =
    input.identifier === ''
      ? undefined
      : await findUserByIdentifier(deps.db, input.identifier, deps.config.defaultCountryCode);
  if (!user) {
    await burnPasswordCheck(input.password);
    throw identityErrors.badCredentials();
  }
  if (!(await verifyPassword(user.password_hash, input.password))) throw identityErrors.badCredentials();
  const proven = await provenPasswordHash(deps.db, user, input.password);
  if (proven === null) throw identityErrors.badCredentials();
  if (user.totp_enabled === 1) {
    const mfaToken = await deps.db.transaction().execute(async (tx) => {
      // As in signIn: a reset that cancelled the user's challenges must not miss this one.
      if (!(await hasPasswordHash(tx, user.id, proven))) throw identityErrors.badCredentials();
      return createMfaChallenge(tx, deps.clock, user.id, input.ip);
    });
    return { kind: 'mfa_required', user, mfaToken };
  }
  const proof = { passwordHash: proven, changed: identityErrors.badCredentials };
  return {
    kind: 'signed_in',
    user,
    session: await signIn(deps, user, { ip: input.ip, method: 'password', proof }),
  };
}

/** POST /auth/mfa/verify: finishes a password login. */
export async function finishMfaLogin(
  deps: Deps,
  input: { mfaToken: string; code: string; ip: string },
): Promise<{ user: UserRow; session: NewSession }> {
  const user = await passMfaChallenge(deps, input.mfaToken, input.code);
  const proof = { passwordHash: user.password_hash, changed: identityErrors.mfaVerifyFailed };
  return { user, session: await signIn(deps, user, { ip: input.ip, method: 'password+totp', proof }) };
}
