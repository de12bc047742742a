import type { CoreDeps } from '../deps.js';
import type { Db } from '../db/index.js';
import type { StaffRole } from '../db/tables/identity.js';
import { uuid } from '../lib/crypto.js';
import { isoNow } from '../lib/time.js';
import { identityErrors } from './errors.js';
import { checkSecondFactor } from './mfa.js';
import { burnPasswordCheck, hashPassword, provenPasswordHash, verifyPassword } from './passwords.js';
import { checkNewPassword } from './rules.js';
import {
  findUserByEmail,
  findUserHolding,
  insertUser,
  listStaffUsers,
  setStaffRole,
  type UserRow,
} from './users.store.js';

export const STAFF_ROLES: readonly StaffRole[] = ['owner', 'admin', 'operator', 'viewer'];

export const isStaffRole = (value: string): value is StaffRole =>
  (STAFF_ROLES as readonly string[]).includes(value);

export const presentStaff = (u: UserRow) => ({
  id: u.id,
  email: u.email,
  display_name: u.display_name,
  role: u.staff_role,
  mfa_enabled: u.totp_enabled === 1,
  created_at: u.created_at,
});

/** Whether an account with this email exists (the CLI asks for a password only when not). */
export const staffCandidateExists = async (deps: Pick<CoreDeps, 'db'>, email: string): Promise<boolean> =>
  (await findUserByEmail(deps.db, email)) !== undefined;

/**
 * Gives an account a staff role. When the email has no account yet, one is created with the
 * given password and the email counted as verified (the operator vouches for it). `also` runs in
 * the same transaction with the account's id (the Wi-Fi feature sets the role's sites there).
 */
export async function addStaff(
  deps: Pick<CoreDeps, 'db' | 'clock' | 'log' | 'config'>,
  input: { email: string; role: string; password?: string | undefined },
  also?: (tx: Db, userId: string) => Promise<void>,
): Promise<{ staff: ReturnType<typeof presentStaff>; created: boolean }> {
  if (!isStaffRole(input.role)) throw identityErrors.invalidRole();
  const role = input.role;
  if (input.password !== undefined) checkNewPassword(input.password);
  const passwordHash = input.password === undefined ? null : await hashPassword(input.password);
  const now = isoNow(deps.clock);
  const result = await deps.db.transaction().execute(async (tx) => {
    const existing = await findUserByEmail(tx, input.email);
    if (existing) {
      await setStaffRole(tx, existing.id, role, now);
      await also?.(tx, existing.id);
      return { user: { ...existing, staff_role: role }, created: false };
    }
    if (passwordHash === null) throw identityErrors.passwordRequired();
    if (await findUserHolding(tx, [input.email], deps.config.defaultCountryCode))
      throw identityErrors.accountExists(); // someone's phone
    const user: UserRow = {
      id: uuid(),
      email: input.email,
      phone: null,
      email_verified: 1,
      phone_verified: 0,
      password_hash: passwordHash,
      display_name: '',
      avatar_url: null,
      staff_role: role,
      totp_secret: null,
      totp_enabled: 0,
      totp_last_step: null,
      registration_ip: null, // made from the CLI: no client address
      password_changed_at: null,
      created_at: now,
      updated_at: now,
    };
    await insertUser(tx, user);
    await also?.(tx, user.id);
    return { user, created: true };
  });
  deps.log.info(
    { event: 'staff.added', user_id: result.user.id, role, created: result.created },
    'staff role set',
  );
  return { staff: presentStaff(result.user), created: result.created };
}

export async function listStaff(deps: Pick<CoreDeps, 'db'>) {
  return (await listStaffUsers(deps.db)).map(presentStaff);
}

/** Takes the staff role away; the identity account stays. */
export async function removeStaff(
  deps: Pick<CoreDeps, 'db' | 'clock' | 'log'>,
  email: string,
): Promise<void> {
  const user = await findUserByEmail(deps.db, email);
  if (!user || user.staff_role === null) throw identityErrors.staffNotFound();
  await setStaffRole(deps.db, user.id, null, isoNow(deps.clock));
  deps.log.info({ event: 'staff.removed', user_id: user.id }, 'staff role removed');
}

export type StaffAuthentication =
  | { kind: 'ok'; user: UserRow & { staff_role: StaffRole } }
  | { kind: 'invalid' | 'not_staff' | 'mfa_required' | 'mfa_invalid' };

/**
 * Staff sign-in (the admin API): the identity password, the TOTP (or recovery) code when the
 * account has MFA on, and a staff role. Unknown accounts cost the same argon2 work as known ones.
 */
export async function authenticateStaff(
  deps: Pick<CoreDeps, 'db' | 'clock' | 'vault'>,
  input: { email: string; password: string; code: string | undefined },
): Promise<StaffAuthentication> {
  const user = input.email === '' ? undefined : await findUserByEmail(deps.db, input.email);
  if (!user) {
    await burnPasswordCheck(input.password);
    return { kind: 'invalid' };
  }
  if (!(await verifyPassword(user.password_hash, input.password))) return { kind: 'invalid' };
  const proven = await provenPasswordHash(deps.db, user, input.password);
  if (proven === null) return { kind: 'invalid' };
  if (user.staff_role === null) return { kind: 'not_staff' };
  if (user.totp_enabled === 1) {
    if (input.code === undefined || input.code === '') return { kind: 'mfa_required' };
    if (!(await checkSecondFactor(deps, user.id, input.code))) return { kind: 'mfa_invalid' };
  }
  // password_hash is the one verified: the session's transaction checks it is still the user's.
  return { kind: 'ok', user: { ...user, password_hash: proven, staff_role: user.staff_role } };
}
