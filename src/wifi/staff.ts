import type { StaffRole } from '../db/tables/identity.js';
import { authenticateStaff, findUser, hasPasswordHash, recordEvent } from '../identity/index.js';
import { randomToken, sha256Hex, uuid } from '../lib/crypto.js';
import { isoIn, isoNow } from '../lib/time.js';
import type { Vault } from '../lib/vault.js';
import type { WifiDeps } from './deps.js';
import { wifiErrors } from './errors.js';
import type { SiteScope } from './sites.js';
import { staffScope } from './sites-staff.js';
import {
  deleteAdminSession,
  deleteExpiredAdminSessions,
  findLiveAdminSession,
  insertAdminSession,
  touchAdminSession,
} from './staff.store.js';

/** wifi-access-api.md §5: the admin_session cookie lives 12 hours (not sliding). */
export const ADMIN_SESSION_SECONDS = 12 * 3600;

/** DESIGN.md §4.4: viewers read; operators also disconnect and send SMS; admins also manage plans and devices; owners also staff. */
export const ROLE_RANK: Readonly<Record<StaffRole, number>> = { viewer: 0, operator: 1, admin: 2, owner: 3 };

export const mayAct = (role: StaffRole, needed: StaffRole): boolean => ROLE_RANK[role] >= ROLE_RANK[needed];

export interface StaffPrincipal {
  sessionId: string;
  userId: string;
  email: string | null;
  displayName: string;
  role: StaffRole;
  /** The sites the role covers: null for every site (docs/decisions/0024-sites.md). */
  sites: SiteScope;
}

/** Staff identity (wifi-access-api.md §2): staff id, email, display name, role. */
export const presentStaffIdentity = (p: StaffPrincipal) => ({
  staff_id: p.userId,
  email: p.email,
  display_name: p.displayName,
  role: p.role,
});

type Deps = Pick<WifiDeps, 'db' | 'clock' | 'log'> & { vault: Vault };

/** POST /api/v1/admin/auth/login: the identity password (+ TOTP when on) and a staff role. */
export async function staffLogin(
  deps: Deps,
  input: { email: string; password: string; code: string | undefined; ip: string },
): Promise<{ principal: StaffPrincipal; token: string }> {
  const auth = await authenticateStaff(deps, input);
  switch (auth.kind) {
    case 'invalid':
      throw wifiErrors.invalidCredentials();
    case 'not_staff':
      throw wifiErrors.notStaff();
    case 'mfa_required':
      throw wifiErrors.mfaRequired();
    case 'mfa_invalid':
      throw wifiErrors.mfaInvalid();
    case 'ok':
      break;
  }
  const token = randomToken(32);
  const now = isoNow(deps.clock);
  const id = uuid();
  await deps.db.transaction().execute(async (tx) => {
    // A password reset committed since the password was checked: this login used the old one.
    if (!(await hasPasswordHash(tx, auth.user.id, auth.user.password_hash)))
      throw wifiErrors.invalidCredentials();
    await deleteExpiredAdminSessions(tx, now);
    await insertAdminSession(tx, {
      id,
      user_id: auth.user.id,
      token_hash: sha256Hex(token),
      ip_address: input.ip,
      created_at: now,
      last_used_at: now,
      expires_at: isoIn(deps.clock, ADMIN_SESSION_SECONDS),
    });
    await recordEvent(tx, deps.clock, {
      userId: auth.user.id,
      action: 'login',
      ip: input.ip,
      detail: 'admin',
    });
  });
  deps.log.info(
    { event: 'staff.login', user_id: auth.user.id, role: auth.user.staff_role },
    'staff signed in',
  );
  const { user } = auth;
  return {
    principal: {
      sessionId: id,
      userId: user.id,
      email: user.email,
      displayName: user.display_name,
      role: user.staff_role,
      sites: await staffScope(deps, user),
    },
    token,
  };
}

/** The staff member behind an admin_session cookie, with their current role; null when none. */
export async function authenticateAdmin(
  deps: Pick<WifiDeps, 'db' | 'clock'>,
  token: string,
): Promise<StaffPrincipal | null> {
  const now = isoNow(deps.clock);
  const session = await findLiveAdminSession(deps.db, sha256Hex(token), now);
  if (!session) return null;
  const user = await findUser(deps, session.user_id);
  // A role taken away (hotspot-ctl staff remove) ends the staff member's sessions at once, and
  // so does a password reset: a session from before it may be an attacker's.
  if (!user?.staff_role) return null;
  if (user.password_changed_at !== null && session.created_at < user.password_changed_at) return null;
  await touchAdminSession(deps.db, session.id, now);
  return {
    sessionId: session.id,
    userId: user.id,
    email: user.email,
    displayName: user.display_name,
    role: user.staff_role,
    sites: await staffScope(deps, { id: user.id, staff_role: user.staff_role }),
  };
}

export const staffLogout = (deps: Pick<WifiDeps, 'db'>, sessionId: string) =>
  deleteAdminSession(deps.db, sessionId);
