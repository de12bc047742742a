import type { CoreDeps } from '../deps.js';
import { BLANKED } from '../notify/types.js';
import type { Db } from '../db/index.js';
import { randomDigits, safeEqual, uuid } from '../lib/crypto.js';
import { isoAgo, isoIn, isoNow } from '../lib/time.js';
import {
  consumeCodes,
  countAttempt,
  countCodesSince,
  deleteCode,
  findLatestUnusedCode,
  insertCode,
  retireOtherCodes,
} from './codes.store.js';
import { identityErrors } from './errors.js';
import { alertUser, recordEvent } from './events.js';
import { findUserByEmail, findUserByPhone, findUserById, updateUser, type UserRow } from './users.store.js';
import { isValidPhone } from './rules.js';

type Deps = Pick<CoreDeps, 'db' | 'clock' | 'config' | 'notifier' | 'log' | 'vault' | 'background'>;
export type CodeChannel = 'email' | 'phone';

export const CODE_TTL_SECONDS = 5 * 60;
export const CODE_MAX_ATTEMPTS = 5;
export const CODE_SENDS_PER_HOUR = 3;

/** Codes are stored as a keyed digest (the vault key): a million candidates are not a secret otherwise. */
const hashCode = (deps: Pick<Deps, 'vault'>, userId: string, code: string): string =>
  deps.vault.digest(code, `verification-code:${userId}`);

interface IssuedCode {
  id: string;
  code: string;
  target: string;
}

/** Inside a transaction: enforce the per-user send budget and store a new code (hashed). */
async function issueCode(
  db: Db,
  deps: Pick<Deps, 'clock' | 'vault'>,
  userId: string,
  channel: CodeChannel,
  target: string,
) {
  const sent = await countCodesSince(db, userId, channel, isoAgo(deps.clock, 3600));
  if (sent >= CODE_SENDS_PER_HOUR) throw identityErrors.tooManyCodes();
  const issued: IssuedCode = { id: uuid(), code: randomDigits(6), target };
  await insertCode(db, {
    id: issued.id,
    user_id: userId,
    channel,
    target,
    code_hash: hashCode(deps, userId, issued.code),
    attempts: 0,
    expires_at: isoIn(deps.clock, CODE_TTL_SECONDS),
    consumed_at: null,
    created_at: isoNow(deps.clock),
  });
  return issued;
}

/**
 * After commit: send the code. A failed send un-issues it (it does not count) and is a 502; a
 * delivered one replaces the earlier codes of the channel (only the latest is ever valid).
 */
async function deliverCode(
  deps: Deps,
  userId: string,
  channel: CodeChannel,
  issued: IssuedCode,
): Promise<void> {
  const say = (code: string) =>
    `Your ${deps.config.serviceName} verification code is ${code}. It expires in 5 minutes.`;
  const text = say(issued.code);
  const result =
    channel === 'email'
      ? await deps.notifier.sendMail({
          to: issued.target,
          subject: `${deps.config.serviceName} verification code`,
          text,
        })
      : await deps.notifier.sendSms({
          to: issued.target,
          message: text,
          log: { kind: 'code', text: say(BLANKED) },
        });
  if (!result.ok) {
    await deleteCode(deps.db, issued.id);
    throw identityErrors.codeNotSent();
  }
  await retireOtherCodes(deps.db, userId, channel, issued.id, isoNow(deps.clock));
}

/** verify-email/send (and the code sent at registration). */
export async function sendVerificationCode(deps: Deps, user: UserRow, channel: CodeChannel): Promise<void> {
  const target = channel === 'email' ? user.email : user.phone;
  if (target === null) throw channel === 'email' ? identityErrors.noEmail() : identityErrors.noPhone();
  const issued = await deps.db.transaction().execute((tx) => issueCode(tx, deps, user.id, channel, target));
  await deliverCode(deps, user.id, channel, issued);
}

/** Inside a transaction: refuse a phone that is another account's phone (or email). */
async function refuseTakenPhone(db: Db, userId: string, phone: string, countryCode: string): Promise<void> {
  const owner = (await findUserByPhone(db, phone, countryCode)) ?? (await findUserByEmail(db, phone));
  if (owner && owner.id !== userId) throw identityErrors.phoneTaken();
}

/**
 * verify-phone/send: a code to the number, unless another account has it. The number is attached
 * (unverified) only once the code went out, so a gateway failure changes nothing.
 */
export async function requestPhoneVerification(deps: Deps, userId: string, phone: string): Promise<void> {
  if (!isValidPhone(phone)) throw identityErrors.invalidPhone();
  const issued = await deps.db.transaction().execute(async (tx) => {
    await refuseTakenPhone(tx, userId, phone, deps.config.defaultCountryCode);
    return issueCode(tx, deps, userId, 'phone', phone);
  });
  await deliverCode(deps, userId, 'phone', issued);
  const { user, changed } = await deps.db.transaction().execute(async (tx) => {
    await refuseTakenPhone(tx, userId, phone, deps.config.defaultCountryCode);
    const current = await findUserById(tx, userId);
    if (!current) throw identityErrors.sessionInvalid();
    const isChange = current.phone !== phone;
    if (isChange) await updateUser(tx, userId, { phone, phone_verified: 0, updated_at: isoNow(deps.clock) });
    return { user: current, changed: isChange };
  });
  if (changed) {
    alertUser(deps, user, {
      subject: 'phone number changed',
      text: `The phone number on your account was changed to ${phone} (not yet verified).`,
    });
  }
}

/** verify-email/check and verify-phone/check: at most 5 tries, 5 minutes, single use. */
export async function checkVerificationCode(
  deps: Deps,
  userId: string,
  channel: CodeChannel,
  code: string,
  ip: string,
) {
  const now = isoNow(deps.clock);
  const outcome = await deps.db.transaction().execute(async (tx) => {
    const user = await findUserById(tx, userId);
    const row = await findLatestUnusedCode(tx, userId, channel);
    const target = channel === 'email' ? user?.email : user?.phone;
    if (
      !user ||
      !row ||
      row.expires_at <= now ||
      row.attempts >= CODE_MAX_ATTEMPTS ||
      row.target !== target
    ) {
      return 'expired' as const;
    }
    if (!safeEqual(row.code_hash, hashCode(deps, userId, code))) {
      await countAttempt(tx, row.id);
      return 'incorrect' as const;
    }
    await consumeCodes(tx, userId, channel, now);
    await updateUser(tx, userId, {
      [channel === 'email' ? 'email_verified' : 'phone_verified']: 1,
      updated_at: now,
    });
    if (channel === 'email')
      await recordEvent(tx, deps.clock, { userId, action: 'email_verified', ip, detail: row.target });
    return 'verified' as const;
  });
  if (outcome === 'expired') throw identityErrors.codeExpired();
  if (outcome === 'incorrect') throw identityErrors.incorrectCode();
}
