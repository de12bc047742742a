import type { CoreDeps } from '../deps.js';
import type { Db } from '../db/index.js';
import type { Clock } from '../lib/clock.js';
import { randomString, randomToken, sha256Hex, uuid } from '../lib/crypto.js';
import { isoAgo, isoIn, isoNow } from '../lib/time.js';
import { identityErrors } from './errors.js';
import { alertUser, recordEvent } from './events.js';
import {
  countChallengeMiss,
  findLiveChallenge,
  insertChallenge,
  recentChallengeMisses,
  replaceRecoveryCodes,
  useChallenge,
  useRecoveryCode,
  useUserChallenges,
} from './mfa.store.js';
import { checkTotp, newTotpSecret, totpUri } from './totp.js';
import { findUserById, updateUser, type UserRow } from './users.store.js';

type Deps = Pick<CoreDeps, 'db' | 'clock' | 'config' | 'notifier' | 'log' | 'vault' | 'background'>;

/** TOTP secrets are sealed in the vault, bound to their account. */
const totpContext = (userId: string): string => `totp-secret:${userId}`;

export const MFA_TOKEN_TTL_SECONDS = 5 * 60;
/** Wrong codes an MFA challenge survives (mfa/* is not rate limited, so the token is). */
export const MFA_MAX_ATTEMPTS = 5;
export const RECOVERY_CODE_COUNT = 10;
/**
 * Wrong codes an account's MFA challenges may take in 15 minutes, across challenges: each
 * challenge allows 5, but fresh ones cost only a password, so the account needs its own budget.
 */
export const MFA_ACCOUNT_MISSES = 10;
const MFA_MISS_WINDOW_SECONDS = 15 * 60;
const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

const normalizeRecoveryCode = (code: string): string => code.toLowerCase().replace(/[\s-]/g, '');

async function loadUser(db: Db, userId: string): Promise<UserRow> {
  const user = await findUserById(db, userId);
  if (!user) throw identityErrors.sessionInvalid();
  return user;
}

/** mfa/setup: a new secret, stored but not active. */
export async function setupTotp(deps: Deps, userId: string): Promise<{ secret: string; uri: string }> {
  const user = await loadUser(deps.db, userId);
  if (user.totp_enabled === 1) throw identityErrors.mfaAlreadyEnabled();
  const secret = await newTotpSecret();
  await updateUser(deps.db, userId, {
    totp_secret: deps.vault.seal(secret, totpContext(userId)),
    totp_last_step: null,
    updated_at: isoNow(deps.clock),
  });
  return { secret, uri: totpUri(deps.config.serviceName, user.email ?? user.phone ?? user.id, secret) };
}

/**
 * A TOTP code (or, when MFA is on, a one-time recovery code) for the user. Accepted codes are
 * burnt: the TOTP step is remembered, the recovery code marked used.
 */
async function acceptSecondFactor(
  db: Db,
  deps: Pick<Deps, 'clock' | 'vault'>,
  user: UserRow,
  code: string,
): Promise<boolean> {
  if (user.totp_secret === null) return false;
  const clock = deps.clock;
  const secret = deps.vault.open(user.totp_secret, totpContext(user.id));
  const step = await checkTotp(secret, code, clock.now(), user.totp_last_step);
  if (step !== null) {
    await updateUser(db, user.id, { totp_last_step: step });
    return true;
  }
  if (user.totp_enabled !== 1 || /^\d{6}$/.test(code)) return false;
  return useRecoveryCode(db, user.id, sha256Hex(normalizeRecoveryCode(code)), isoNow(clock));
}

/** mfa/enable: a valid code turns MFA on and returns one-time recovery codes (shown once). */
export async function enableTotp(
  deps: Deps,
  userId: string,
  code: string,
  ip: string,
): Promise<{ recovery_codes: string[] }> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const raw = randomString(RECOVERY_ALPHABET, 10);
    return `${raw.slice(0, 5)}-${raw.slice(5)}`;
  });
  const user = await deps.db.transaction().execute(async (tx) => {
    const current = await loadUser(tx, userId);
    if (current.totp_enabled === 1) throw identityErrors.mfaAlreadyEnabled();
    if (current.totp_secret === null) throw identityErrors.mfaNotSetUp();
    if (!(await acceptSecondFactor(tx, deps, current, code))) return null;
    const now = isoNow(deps.clock);
    await updateUser(tx, userId, { totp_enabled: 1, updated_at: now });
    await replaceRecoveryCodes(
      tx,
      userId,
      codes.map((c) => ({
        id: uuid(),
        user_id: userId,
        code_hash: sha256Hex(normalizeRecoveryCode(c)),
        used_at: null,
        created_at: now,
      })),
    );
    await recordEvent(tx, deps.clock, { userId, action: 'mfa_enabled', ip });
    return current;
  });
  if (!user) throw identityErrors.mfaInvalidCode();
  alertUser(deps, user, {
    subject: 'two-step sign-in turned on',
    text: 'Two-step sign-in (TOTP) was turned on for your account.',
  });
  return { recovery_codes: codes };
}

/** mfa/disable: needs a valid code (or a recovery code). */
export async function disableTotp(deps: Deps, userId: string, code: string, ip: string): Promise<void> {
  const user = await deps.db.transaction().execute(async (tx) => {
    const current = await loadUser(tx, userId);
    if (current.totp_enabled !== 1) throw identityErrors.mfaNotEnabled();
    if (!(await acceptSecondFactor(tx, deps, current, code))) return null;
    await updateUser(tx, userId, {
      totp_enabled: 0,
      totp_secret: null,
      totp_last_step: null,
      updated_at: isoNow(deps.clock),
    });
    await replaceRecoveryCodes(tx, userId, []);
    await recordEvent(tx, deps.clock, { userId, action: 'mfa_disabled', ip });
    return current;
  });
  if (!user) throw identityErrors.mfaInvalidCode();
  alertUser(deps, user, {
    subject: 'two-step sign-in turned off',
    text: 'Two-step sign-in (TOTP) was turned off for your account.',
  });
}

/**
 * A second factor for a user with MFA on (staff login): a TOTP code or a recovery code, burnt
 * when accepted. False for a wrong code or a user without MFA.
 */
export async function checkSecondFactor(
  deps: Pick<Deps, 'db' | 'clock' | 'vault'>,
  userId: string,
  code: string,
): Promise<boolean> {
  return deps.db.transaction().execute(async (tx) => {
    const user = await findUserById(tx, userId);
    return user !== undefined && user.totp_enabled === 1 && acceptSecondFactor(tx, deps, user, code);
  });
}

/** After a correct password on an MFA account: a short-lived, single-use challenge token. */
export async function createMfaChallenge(db: Db, clock: Clock, userId: string, ip: string): Promise<string> {
  const token = randomToken(32);
  await insertChallenge(db, {
    id: uuid(),
    user_id: userId,
    token_hash: sha256Hex(token),
    attempts: 0,
    ip_address: ip,
    expires_at: isoIn(clock, MFA_TOKEN_TTL_SECONDS),
    used_at: null,
    created_at: isoNow(clock),
  });
  return token;
}

/**
 * Inside a transaction: ends the user's pending MFA logins. A password reset calls it, so an
 * mfa_token won with the old password cannot finish a sign-in.
 */
export const cancelMfaChallenges = (db: Db, userId: string, now: string) =>
  useUserChallenges(db, userId, now);

/** mfa/verify: the challenge and a valid code give the user; anything else is "invalid mfa code". */
export async function passMfaChallenge(deps: Deps, token: string, code: string): Promise<UserRow> {
  const now = isoNow(deps.clock);
  const user = await deps.db.transaction().execute(async (tx) => {
    const challenge = await findLiveChallenge(tx, sha256Hex(token), now, MFA_MAX_ATTEMPTS);
    if (!challenge) return null;
    const current = await findUserById(tx, challenge.user_id);
    const spent =
      (await recentChallengeMisses(tx, challenge.user_id, isoAgo(deps.clock, MFA_MISS_WINDOW_SECONDS))) >=
      MFA_ACCOUNT_MISSES;
    if (
      !current ||
      current.totp_enabled !== 1 ||
      spent ||
      !(await acceptSecondFactor(tx, deps, current, code))
    ) {
      await countChallengeMiss(tx, challenge.id);
      return null;
    }
    await useChallenge(tx, challenge.id, now);
    return current;
  });
  if (!user) throw identityErrors.mfaVerifyFailed();
  return user;
}
