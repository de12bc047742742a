import { findUser } from '../identity/index.js';
import { isoNow } from '../lib/time.js';
import { findLiveAccessToken } from './grants.store.js';
import { verifyJwt } from './jwt.js';
import type { OAuthDeps } from './token.js';
import { parseScope } from './scope.js';

export interface BearerGrant {
  userId: string;
  clientId: string;
  scopes: string[];
}

/**
 * A live access token: valid RS256 signature by a published key (picked by kid), our issuer,
 * not expired, and not revoked (one primary-key lookup, so a revoked token dies at once).
 */
export async function verifyBearer(
  deps: Pick<OAuthDeps, 'db' | 'clock' | 'config' | 'keys'>,
  token: string,
): Promise<BearerGrant | null> {
  await deps.keys.refresh();
  const payload = verifyJwt(token, {
    keyFor: (kid) => deps.keys.verifyKey(kid),
    typ: 'at+jwt',
    issuer: deps.config.publicBaseUrl,
    now: Math.floor(deps.clock.now().getTime() / 1000),
  });
  if (!payload || typeof payload.jti !== 'string') return null;
  const row = await findLiveAccessToken(deps.db, payload.jti, isoNow(deps.clock));
  if (!row || row.user_id !== payload.sub) return null;
  return { userId: row.user_id, clientId: row.client_id, scopes: parseScope(row.scope) };
}

/** GET /oauth/userinfo: claims gated by scope; absent attributes are omitted. */
export async function userinfo(
  deps: Pick<OAuthDeps, 'db'>,
  grant: BearerGrant,
): Promise<Record<string, unknown> | null> {
  const user = await findUser(deps, grant.userId);
  if (!user) return null;
  const has = (scope: string) => grant.scopes.includes(scope);
  return {
    sub: user.id,
    ...(has('profile') && user.display_name !== '' ? { name: user.display_name } : {}),
    ...(has('profile') && user.avatar_url !== null ? { picture: user.avatar_url } : {}),
    ...(has('email') && user.email !== null
      ? { email: user.email, email_verified: user.email_verified === 1 }
      : {}),
    ...(has('phone') && user.phone !== null
      ? { phone_number: user.phone, phone_number_verified: user.phone_verified === 1 }
      : {}),
  };
}
