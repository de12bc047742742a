import type { CoreDeps } from '../deps.js';
import { BLANKED } from '../notify/types.js';
import type { Db } from '../db/index.js';
import { randomDigits, randomHex, sha256Hex, uuid } from '../lib/crypto.js';
import { addressBlock } from '../lib/ip.js';
import { isoAgo, isoIn, isoNow } from '../lib/time.js';
import { identityErrors } from './errors.js';
import { alertUser, recordEvent } from './events.js';
import { cancelMfaChallenges } from './mfa.js';
import { hashPassword } from './passwords.js';
import {
  countMissesSince,
  countSmsResetMiss,
  findLiveReset,
  insertMiss,
  insertReset,
  pruneMisses,
  retireUserResets,
} from './resets.store.js';
import { checkNewPassword } from './rules.js';
import { revokeAllSessions } from './sessions.js';
import { findUserByEmail, findUserById, findUserByPhone, updateUser } from './users.store.js';

type Deps = Pick<CoreDeps, 'db' | 'clock' | 'config' | 'notifier' | 'log' | 'vault' | 'background'>;

export const RESET_LINK_TTL_SECONDS = 3600;
export const RESET_SMS_TTL_SECONDS = 15 * 60;
/**
 * Wrong codes a live SMS code survives, from all clients together (each miss counts against
 * every live code): at most 100 of a million values are ever tried against one code.
 */
export const RESET_SMS_MAX_MISSES = 100;
/**
 * Wrong codes one client (IPv4 address or IPv6 /64) may try in an hour; after that its codes are
 * refused without being looked at. One client can never spend a code's ceiling on its own.
 */
export const RESET_SMS_CLIENT_MISSES = 10;
const RESET_SMS_MISS_WINDOW_SECONDS = 3600;

const LINK_TOKEN = /^[0-9a-f]{64}$/;

/**
 * A link token has 256 bits and is stored as its SHA-256; a 6-digit SMS code has a million
 * values, so it is stored as a keyed digest (the vault key) that a database copy cannot test.
 */
const resetHash = (deps: Pick<Deps, 'vault'>, kind: 'link' | 'sms', token: string): string =>
  kind === 'link' ? sha256Hex(token) : deps.vault.digest(token, 'sms-reset-code');
const SMS_CODE = /^\d{6}$/;

/**
 * forgot-password, started in the background: the answer is the same, and as fast, whether or
 * not an account exists (no lookup, write or send on the request's path). Failures are logged.
 * The background task starts only after the current turn of the event loop, in which the answer
 * is written, so not even the lookup's first steps run ahead of it.
 */
export function startPasswordReset(deps: Deps, identifier: string): void {
  deps.background.run('account.reset_request_failed', 'password reset request failed', () =>
    requestPasswordReset(deps, identifier),
  );
}

/** The work of forgot-password: a link for an email, an SMS code for a verified phone. */
export async function requestPasswordReset(deps: Deps, identifier: string): Promise<void> {
  const byEmail = await findUserByEmail(deps.db, identifier);
  if (byEmail?.email) {
    const token = randomHex(32);
    await deps.db.transaction().execute(async (tx) => {
      await retireUserResets(tx, byEmail.id, isoNow(deps.clock), 'link');
      await storeReset(tx, deps, byEmail.id, 'link', token, RESET_LINK_TTL_SECONDS);
    });
    const link = `${deps.config.publicBaseUrl}/reset-password?token=${token}`;
    await deps.notifier.sendMail({
      to: byEmail.email,
      subject: `${deps.config.serviceName}: reset your password`,
      text: `Someone asked to reset the password of your ${deps.config.serviceName} account.\n\nTo choose a new password, open:\n${link}\n\nThe link works once, for one hour. If you did not ask for it, ignore this mail.\n`,
    });
    return;
  }
  const byPhone = await findUserByPhone(deps.db, identifier, deps.config.defaultCountryCode);
  if (byPhone?.phone && byPhone.phone_verified === 1) {
    const code = await deps.db.transaction().execute(async (tx) => {
      await retireUserResets(tx, byPhone.id, isoNow(deps.clock), 'sms');
      return storeSmsCode(tx, deps, byPhone.id);
    });
    const say = (secret: string) =>
      `Your ${deps.config.serviceName} password reset code is ${secret}. It expires in 15 minutes.`;
    await deps.notifier.sendSms({
      to: byPhone.phone,
      message: say(code),
      log: { kind: 'reset', text: say(BLANKED) },
    });
  }
}

async function storeReset(
  db: Db,
  deps: Pick<Deps, 'clock' | 'vault'>,
  userId: string,
  kind: 'link' | 'sms',
  token: string,
  ttl: number,
) {
  await insertReset(db, {
    id: uuid(),
    user_id: userId,
    kind,
    token_hash: resetHash(deps, kind, token),
    attempts: 0,
    expires_at: isoIn(deps.clock, ttl),
    used_at: null,
    created_at: isoNow(deps.clock),
  });
}

/** A 6-digit code no other live SMS reset holds, so a code names exactly one account. */
async function storeSmsCode(db: Db, deps: Pick<Deps, 'clock' | 'vault'>, userId: string): Promise<string> {
  for (;;) {
    const code = randomDigits(6);
    const clash = await findLiveReset(
      db,
      'sms',
      resetHash(deps, 'sms', code),
      isoNow(deps.clock),
      RESET_SMS_MAX_MISSES,
    );
    if (!clash) {
      await storeReset(db, deps, userId, 'sms', code, RESET_SMS_TTL_SECONDS);
      return code;
    }
  }
}

/**
 * reset-password with the mailed token (64 hex) or the SMS code (6 digits). Success replaces the
 * password, retires every reset of the user, revokes all their sessions and ends their pending
 * MFA logins, in one transaction.
 */
export async function resetPassword(
  deps: Deps,
  input: { token: string; newPassword: string; ip: string },
): Promise<void> {
  checkNewPassword(input.newPassword);
  const kind = LINK_TOKEN.test(input.token) ? 'link' : SMS_CODE.test(input.token) ? 'sms' : null;
  if (kind === null) throw identityErrors.resetInvalid();
  const tokenHash = resetHash(deps, kind, input.token);
  const found =
    kind === 'sms'
      ? await tryResetCode(deps, tokenHash, input.ip)
      : Boolean(await findLiveReset(deps.db, kind, tokenHash, isoNow(deps.clock), RESET_SMS_MAX_MISSES));
  if (!found) throw identityErrors.resetInvalid();
  // Hash outside the transaction (argon2 takes tens of milliseconds), then re-check inside it.
  const passwordHash = await hashPassword(input.newPassword);
  const now = isoNow(deps.clock);
  const userId = await deps.db.transaction().execute(async (tx) => {
    const reset = await findLiveReset(tx, kind, tokenHash, now, RESET_SMS_MAX_MISSES);
    if (!reset) return null;
    await updateUser(tx, reset.user_id, {
      password_hash: passwordHash,
      password_changed_at: now,
      updated_at: now,
    });
    await retireUserResets(tx, reset.user_id, now);
    await revokeAllSessions(tx, reset.user_id);
    await cancelMfaChallenges(tx, reset.user_id, now);
    await recordEvent(tx, deps.clock, {
      userId: reset.user_id,
      action: 'password_reset',
      ip: input.ip,
      detail: kind,
    });
    return reset.user_id;
  });
  if (userId === null) throw identityErrors.resetInvalid();
  deps.log.info({ event: 'account.password_reset', user_id: userId }, 'password reset');
  const user = await findUserById(deps.db, userId);
  if (user)
    alertUser(deps, user, { subject: 'password changed', text: 'The password of your account was reset.' });
}

/**
 * One SMS code tried by the client at `ip`, in one transaction: refused unseen when the client's
 * hourly budget is spent (nothing is recorded); otherwise a wrong code is recorded against the
 * client and against every live SMS code. True when a live code has this value.
 *
 * reset-password names no account and is not rate limited (identity-service.md §8), so a miss
 * cannot be charged to the code it was aimed at: the client budget keeps one client from locking
 * anyone out, the per-code ceiling keeps many clients from guessing (decisions/0003).
 */
async function tryResetCode(deps: Pick<Deps, 'db' | 'clock' | 'log'>, tokenHash: string, ip: string) {
  const source = addressBlock(ip);
  const now = isoNow(deps.clock);
  const since = isoAgo(deps.clock, RESET_SMS_MISS_WINDOW_SECONDS);
  const outcome = await deps.db.transaction().execute(async (tx) => {
    const misses = await countMissesSince(tx, source, since);
    if (misses >= RESET_SMS_CLIENT_MISSES) return 'refused' as const;
    if (await findLiveReset(tx, 'sms', tokenHash, now, RESET_SMS_MAX_MISSES)) return 'found' as const;
    await pruneMisses(tx, since);
    await insertMiss(tx, { source, created_at: now });
    await countSmsResetMiss(tx, now);
    return misses + 1 === RESET_SMS_CLIENT_MISSES ? ('spent' as const) : ('missed' as const);
  });
  if (outcome === 'spent')
    deps.log.warn({ event: 'account.reset_code_budget_spent', source }, 'SMS reset code guesses spent');
  return outcome === 'found';
}

/** Scheduled: forget wrong SMS codes that no longer count against their client (they hold its address). */
export const pruneResetCodeMisses = (deps: Pick<CoreDeps, 'db' | 'clock'>) =>
  pruneMisses(deps.db, isoAgo(deps.clock, RESET_SMS_MISS_WINDOW_SECONDS));
