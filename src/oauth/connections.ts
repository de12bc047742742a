import type { CoreDeps } from '../deps.js';
import { recordEvent } from '../identity/index.js';
import { isoNow } from '../lib/time.js';
import { oauthErrors } from './errors.js';
import { clientCounts, deleteConsent, listConsents, revokeUserClientGrants } from './grants.store.js';

/** GET /connections: the apps the user granted access to, newest grant first. */
export const listConnections = (deps: Pick<CoreDeps, 'db'>, userId: string) => listConsents(deps.db, userId);

/**
 * DELETE /connections/{client_id} and POST /oauth/revoke: the consent goes, and with it every
 * refresh family and live access token of that user and client, at once.
 */
export async function revokeConnection(
  deps: Pick<CoreDeps, 'db' | 'clock'>,
  userId: string,
  clientId: string,
  ip: string,
): Promise<void> {
  const now = isoNow(deps.clock);
  await deps.db.transaction().execute(async (tx) => {
    if (!(await deleteConsent(tx, userId, clientId))) throw oauthErrors.connectionNotFound();
    await revokeUserClientGrants(tx, userId, clientId, 'consent_revoked', now);
    await recordEvent(tx, deps.clock, { userId, action: 'app_revoked', ip, detail: clientId });
  });
}

/** The console's ClientGrantStats port. */
export const grantStats = (deps: Pick<CoreDeps, 'db' | 'clock'>) => ({
  clientStats: (clientId: string) => clientCounts(deps.db, clientId, isoNow(deps.clock)),
});
