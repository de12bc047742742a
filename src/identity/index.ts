import type { CoreDeps } from '../deps.js';
import type { Route } from '../http/route.js';
import type { BearerVerifier } from './ports.js';
import { accountRoutes } from './account.routes.js';
import { mfaRoutes } from './mfa.routes.js';
import { passkeyRoutes } from './passkeys.routes.js';
import { profileRoutes } from './profile.routes.js';
import { socialRoutes } from './social.routes.js';
import { verifyRoutes } from './verify.routes.js';

/** The identity feature's public surface: what other features, the CLI and app.ts may use. */
export {
  addStaff,
  authenticateStaff,
  listStaff,
  removeStaff,
  staffCandidateExists,
  STAFF_ROLES,
  isStaffRole,
  type StaffAuthentication,
} from './staff.js';
export { signIn } from './login.js';
export {
  addSocialProvider,
  listSocialProviders,
  removeSocialProvider,
  socialLoginChoices,
} from './social.js';
export { recordEvent, alertUser } from './events.js';
export type { SecurityAction } from './events.js';
export {
  requireSession,
  optionalSession,
  checkOrigin,
  sessionCookie,
  clearSessionCookie,
} from './session.http.js';
export type { SessionPrincipal } from './session.http.js';
export { pruneExpiredSessions } from './sessions.js';
export { pruneResetCodeMisses } from './reset.js';
export { presentUser, presentProfile } from './present.js';
export { identityErrors } from './errors.js';
export { verifyPassword } from './passwords.js';
export { checkTotp } from './totp.js';
export type { UserRow } from './users.store.js';
export { hasPasswordHash } from './users.store.js';
export { findUser } from './users.js';

export type { BearerVerifier } from './ports.js';

export function identityRoutes(
  deps: Pick<CoreDeps, 'db' | 'clock' | 'config' | 'notifier' | 'log' | 'vault' | 'background'> & {
    bearer: BearerVerifier;
  },
): Route[] {
  return [
    ...accountRoutes(deps),
    ...verifyRoutes(deps),
    ...mfaRoutes(deps),
    ...passkeyRoutes(deps),
    ...profileRoutes(deps),
    ...socialRoutes(deps),
  ];
}
