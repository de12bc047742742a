import type { CoreDeps } from '../deps.js';
import type { Db } from '../db/index.js';
import type { Clock } from '../lib/clock.js';
import { isoNow } from '../lib/time.js';
import { insertEvent, listEvents, loginHistory } from './events.store.js';
import { presentSecurityEvent } from './present.js';
import type { UserRow } from './users.store.js';

/** The actions of identity-service.md §6. */
export type SecurityAction =
  | 'login'
  | 'email_verified'
  | 'password_reset'
  | 'mfa_enabled'
  | 'mfa_disabled'
  | 'passkey_added'
  | 'passkey_removed'
  | 'app_connected'
  | 'app_revoked';

export const SECURITY_EVENTS_SHOWN = 100;

export async function recordEvent(
  db: Db,
  clock: Clock,
  event: { userId: string; action: SecurityAction; ip: string | null; detail?: string },
): Promise<void> {
  await insertEvent(db, {
    user_id: event.userId,
    action: event.action,
    ip_address: event.ip,
    detail: event.detail ?? '',
    created_at: isoNow(clock),
  });
}

export async function securityEvents(deps: Pick<CoreDeps, 'db'>, userId: string) {
  return (await listEvents(deps.db, userId, SECURITY_EVENTS_SHOWN)).map(presentSecurityEvent);
}

/**
 * True when `ip` is an address the user never used: neither the one they registered from nor
 * one they signed in from before. Worth telling them. False while nothing is known to compare
 * with (an account the CLI made, or one older than migration 0011, signing in for the first time).
 */
export async function isNewLoginAddress(
  db: Db,
  user: Pick<UserRow, 'id' | 'registration_ip'>,
  ip: string,
): Promise<boolean> {
  if (user.registration_ip === ip) return false;
  const history = await loginHistory(db, user.id, ip);
  return (user.registration_ip !== null || history.any) && !history.fromIp;
}

/**
 * Tells the user by mail about a sensitive change to their account. Sent in the background:
 * the change is already committed, and a mail gateway that is slow or down must not hold the
 * request (the notifier logs failures).
 */
export function alertUser(
  deps: Pick<CoreDeps, 'notifier' | 'config' | 'background'>,
  user: Pick<UserRow, 'email'>,
  alert: { subject: string; text: string },
): void {
  if (!user.email) return;
  const to = user.email;
  deps.background.run('account.alert_failed', 'security alert not sent', () =>
    deps.notifier.sendMail({
      to,
      subject: `${deps.config.serviceName}: ${alert.subject}`,
      text: `${alert.text}\n\nIf this was not you, reset your password and review your account's sessions.\n`,
    }),
  );
}
