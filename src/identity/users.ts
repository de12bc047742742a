import type { CoreDeps } from '../deps.js';
import { uuid } from '../lib/crypto.js';
import { isoNow } from '../lib/time.js';
import { sendVerificationCode } from './codes.js';
import { identityErrors } from './errors.js';
import { hashPassword } from './passwords.js';
import { checkNewPassword, codePoints, DISPLAY_NAME_MAX, isValidPhone } from './rules.js';
import { presentProfile } from './present.js';
import { createSession, type NewSession } from './sessions.js';
import {
  deleteUser,
  findUserHolding,
  findUserById,
  insertUser,
  updateUser,
  type UserRow,
} from './users.store.js';

type Deps = Pick<CoreDeps, 'db' | 'clock' | 'config' | 'notifier' | 'log' | 'vault' | 'background'>;

export interface RegisterInput {
  email: string | null;
  phone: string | null;
  password: string;
  ip: string;
}

/**
 * Creates an account and signs it in. An email registration is sent a verification code in the
 * background after the account is committed (a failed send is logged; the user can ask again).
 */
export async function register(
  deps: Deps,
  input: RegisterInput,
): Promise<{ user: UserRow; session: NewSession }> {
  const email = input.email === '' ? null : input.email;
  const phone = input.phone === '' ? null : input.phone;
  if (email === null && phone === null) throw identityErrors.identifierRequired();
  // The spec's register row lists no message for this one: decisions/0003-identity-accounts.md.
  if (phone !== null && !isValidPhone(phone)) throw identityErrors.invalidPhone();
  checkNewPassword(input.password);
  const passwordHash = await hashPassword(input.password);

  const now = isoNow(deps.clock);
  const user: UserRow = {
    id: uuid(),
    email,
    phone,
    email_verified: 0,
    phone_verified: 0,
    password_hash: passwordHash,
    display_name: '',
    avatar_url: null,
    staff_role: null,
    totp_secret: null,
    totp_enabled: 0,
    totp_last_step: null,
    registration_ip: input.ip,
    password_changed_at: null,
    created_at: now,
    updated_at: now,
  };
  const session = await deps.db.transaction().execute(async (tx) => {
    if (await findUserHolding(tx, [email ?? '', phone ?? ''], deps.config.defaultCountryCode))
      throw identityErrors.accountExists();
    await insertUser(tx, user);
    return createSession(tx, deps.clock, { userId: user.id, ip: input.ip });
  });
  deps.log.info({ event: 'account.registered', user_id: user.id }, 'account registered');
  if (email !== null) {
    // In the background: a slow mail server must not hold the sign-up (the account is committed,
    // and the user can ask for another code).
    deps.background.run(
      'account.registration_code_failed',
      'registration code not sent',
      () => sendVerificationCode(deps, user, 'email'),
      { user_id: user.id },
    );
  }
  return { user, session };
}

/** Deletes the account (users.store.ts deleteUser says what goes and what is kept). */
export async function deleteAccount(deps: Pick<CoreDeps, 'db' | 'log'>, userId: string): Promise<void> {
  await deleteUser(deps.db, userId);
  deps.log.info({ event: 'account.deleted', user_id: userId }, 'account deleted');
}

export async function getUser(deps: Pick<CoreDeps, 'db'>, userId: string): Promise<UserRow> {
  const user = await findUserById(deps.db, userId);
  if (!user) throw identityErrors.sessionInvalid();
  return user;
}

export async function getProfile(deps: Pick<CoreDeps, 'db'>, userId: string) {
  return presentProfile(await getUser(deps, userId));
}

/** PATCH /profile: omitted fields stay; an empty avatar_url clears it. */
export async function updateProfile(
  deps: Pick<CoreDeps, 'db' | 'clock'>,
  userId: string,
  patch: { display_name?: string; avatar_url?: string | null },
) {
  if (patch.display_name !== undefined && codePoints(patch.display_name) > DISPLAY_NAME_MAX) {
    throw identityErrors.displayNameTooLong();
  }
  let avatar: string | null | undefined = patch.avatar_url;
  if (avatar === '') avatar = null;
  if (avatar !== undefined && avatar !== null && !isHttpUrl(avatar)) throw identityErrors.avatarUrlInvalid();
  await updateUser(deps.db, userId, {
    ...(patch.display_name === undefined ? {} : { display_name: patch.display_name }),
    ...(avatar === undefined ? {} : { avatar_url: avatar }),
    updated_at: isoNow(deps.clock),
  });
  return getProfile(deps, userId);
}

function isHttpUrl(value: string): boolean {
  if (value.length > 2048) return false;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

/** The account, or undefined (for other features: userinfo claims, staff checks). */
export const findUser = (deps: Pick<CoreDeps, 'db'>, userId: string) => findUserById(deps.db, userId);
