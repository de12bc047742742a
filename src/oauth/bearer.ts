import { isoNow } from '../lib/time.js';
import { findLiveBearer } from './grants.store.js';
import { verifyJwt } from './jwt.js';
import type { OAuthDeps } from './token.js';
import { parseScope } from './scope.js';

/** What userinfo's claims are made of, read in the same lookup as the token's liveness. */
export interface BearerUser {
  email: string | null;
  email_verified: number;
  phone: string | null;
  phone_verified: number;
  display_name: string;
  avatar_url: string | null;
}

export interface BearerGrant {
  userId: string;
  clientId: string;
  scopes: string[];
  user: BearerUser;
}

/**
 * A live access token: valid RS256 signature by a published key (picked by kid), our issuer,
 * not expired, and not revoked: one compiled, indexed lookup per call (no liveness cache), so a
 * revoked token dies at once.
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
  const row = await findLiveBearer(deps.db, payload.jti, isoNow(deps.clock));
  if (!row || row.user_id !== payload.sub) return null;
  return {
    userId: row.user_id,
    clientId: row.client_id,
    scopes: parseScope(row.scope),
    user: {
      email: row.email,
      email_verified: row.email_verified,
      phone: row.phone,
      phone_verified: row.phone_verified,
      display_name: row.display_name,
      avatar_url: row.avatar_url,
    },
  };
}

/** GET /oauth/userinfo: claims gated by scope; absent attributes are omitted. */
export function userinfoClaims(grant: BearerGrant): Record<string, unknown> {
  const { user } = grant;
  const has = (scope: string) => grant.scopes.includes(scope);
  return {
    sub: grant.userId,
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
