import type { CoreDeps } from '../deps.js';
import type { Db } from '../db/index.js';
import { clientSecretMatches, findClient, KNOWN_SCOPES, type ClientRow } from '../console/index.js';
import { randomToken, sha256Hex, uuid } from '../lib/crypto.js';
import { isoIn, isoNow } from '../lib/time.js';
import { REUSE_DETECTED, tokenErrors } from './errors.js';
import {
  findCode,
  findRefreshToken,
  insertAccessToken,
  insertFamily,
  insertRefreshToken,
  attachFamilyToCode,
  claimCode,
  claimRotation,
  findConsent,
  revokeFamily,
} from './grants.store.js';
import { signJwt } from './jwt.js';
import type { Keyring } from './keys.js';
import { isSubset, joinScope, parseScope, s256, VERIFIER } from './scope.js';

export type OAuthDeps = Pick<CoreDeps, 'db' | 'clock' | 'config' | 'log' | 'commits'> & { keys: Keyring };

export const ACCESS_TOKEN_TTL_SECONDS = 900;
/** A refresh token unused for 30 days expires; each rotation starts a new 30 days. */
export const REFRESH_TOKEN_TTL_SECONDS = 30 * 86_400;

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
  id_token?: string;
}

interface Credentials {
  clientId: string | null;
  secret: string | null;
}

/**
 * client_secret_post or client_secret_basic. Basic credentials are form-urlencoded before
 * base64 (RFC 6749 §2.3.1; openid-client sends `cli%2D1`), so both halves are decoded.
 */
function credentials(form: URLSearchParams, authorization: string | undefined): Credentials {
  const formId = form.get('client_id');
  const formSecret = form.get('client_secret');
  if (authorization?.toLowerCase().startsWith('basic ')) {
    if (formSecret !== null)
      throw tokenErrors.invalidRequest('use one client authentication method, not two');
    const decoded = Buffer.from(authorization.slice(6).trim(), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw tokenErrors.invalidClient();
    let id: string;
    let secret: string;
    try {
      id = decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' '));
      secret = decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' '));
    } catch {
      throw tokenErrors.invalidClient();
    }
    if (formId !== null && formId !== id) throw tokenErrors.invalidClient();
    return { clientId: id, secret };
  }
  return { clientId: formId, secret: formSecret };
}

/**
 * identity-service.md §5 rule 6: credentials that are wrong or missing are 401 invalid_client,
 * and so is a missing client_id. A public client has no secret, so one presented for it (form or
 * Basic) is a wrong credential rather than something to ignore; an empty one is no secret at all.
 */
async function authenticateClient(deps: OAuthDeps, creds: Credentials): Promise<ClientRow> {
  if (!creds.clientId) throw tokenErrors.invalidClient('client_id is required');
  const client = await findClient(deps, creds.clientId);
  if (!client) throw tokenErrors.invalidClient();
  if (client.type === 'confidential') {
    if (creds.secret === null || !clientSecretMatches(client, creds.secret))
      throw tokenErrors.invalidClient();
  } else if (creds.secret !== null && creds.secret !== '') {
    throw tokenErrors.invalidClient('public clients do not authenticate with a secret');
  }
  if (client.status === 'disabled') throw tokenErrors.invalidClient('client is disabled');
  return client;
}

interface Issued {
  jti: string;
  refreshToken: string;
}

/** Stores a new refresh token and access-token record of a family (inside the grant's transaction). */
async function storeTokens(
  db: Db,
  deps: OAuthDeps,
  family: { id: string; clientId: string; userId: string; scope: string },
): Promise<Issued> {
  const refreshToken = randomToken(32);
  const jti = randomToken(16);
  const now = isoNow(deps.clock);
  await insertRefreshToken(db, {
    token_hash: sha256Hex(refreshToken),
    family_id: family.id,
    created_at: now,
    expires_at: isoIn(deps.clock, REFRESH_TOKEN_TTL_SECONDS),
  });
  await insertAccessToken(db, {
    jti,
    client_id: family.clientId,
    user_id: family.userId,
    family_id: family.id,
    scope: family.scope,
    expires_at: isoIn(deps.clock, ACCESS_TOKEN_TTL_SECONDS),
    created_at: now,
  });
  return { jti, refreshToken };
}

/** Signs the access token (and the ID token when asked). */
async function respond(
  deps: OAuthDeps,
  grant: Issued & { clientId: string; userId: string; scope: string },
  idToken: { nonce: string | null; authTime: string } | null,
): Promise<TokenResponse> {
  // Signing starts on the next turn of the event loop: by then the unit's group has committed
  // and queued its WAL sync on the thread pool, so the disk works while the pool signs instead
  // of the sync waiting behind the group's signatures.
  await new Promise((resolve) => setImmediate(resolve));
  const key = await deps.keys.signingKey();
  const iat = Math.floor(deps.clock.now().getTime() / 1000);
  const iss = deps.config.publicBaseUrl;
  const access = signJwt(
    {
      iss,
      sub: grant.userId,
      aud: grant.clientId,
      client_id: grant.clientId,
      scope: grant.scope,
      iat,
      exp: iat + ACCESS_TOKEN_TTL_SECONDS,
      jti: grant.jti,
    },
    key,
    'at+jwt',
  );
  const id =
    idToken === null
      ? null
      : signJwt(
          {
            iss,
            sub: grant.userId,
            aud: grant.clientId,
            azp: grant.clientId,
            iat,
            exp: iat + ACCESS_TOKEN_TTL_SECONDS,
            auth_time: Math.floor(Date.parse(idToken.authTime) / 1000),
            ...(idToken.nonce === null ? {} : { nonce: idToken.nonce }),
          },
          key,
          'JWT',
        );
  const [accessToken, idTokenValue] = await Promise.all([access, id]);
  return {
    access_token: accessToken,
    token_type: 'Bearer',
    expires_in: ACCESS_TOKEN_TTL_SECONDS,
    refresh_token: grant.refreshToken,
    scope: grant.scope,
    ...(idTokenValue === null ? {} : { id_token: idTokenValue }),
  };
}

/**
 * Starts signing from inside the grant's unit of work, so the thread pool signs while the group
 * commits (the commit's fsync is I/O wait on the event loop). The caller hands the response out
 * only after `commits.run` resolved, i.e. after the grant committed; a grant that rolls back, or
 * whose commit fails, drops its signature unseen (no unhandled rejection either).
 */
function signAhead(signing: Promise<TokenResponse>): { response: Promise<TokenResponse> } {
  void signing.catch(() => undefined);
  return { response: signing };
}

function required(form: URLSearchParams, ...names: string[]): string[] {
  const values = names.map((n) => form.get(n) ?? '');
  const missing = names.filter((_, i) => values[i] === '');
  if (missing.length > 0) throw tokenErrors.invalidRequest(`missing required field: ${missing.join(', ')}`);
  return values;
}

async function authorizationCodeGrant(
  deps: OAuthDeps,
  client: ClientRow,
  form: URLSearchParams,
): Promise<TokenResponse> {
  const [code = '', redirectUri = '', verifier = ''] = required(
    form,
    'code',
    'redirect_uri',
    'code_verifier',
  );
  const now = isoNow(deps.clock);
  // One grant is one unit of work; concurrent grants share a commit (src/db/group-commit.ts).
  const outcome = await deps.commits.run(async (tx) => {
    const row = await findCode(tx, sha256Hex(code));
    if (!row) return { kind: 'invalid' as const };
    if (row.used_at !== null) {
      // A replayed code: whatever it was exchanged for is revoked.
      if (row.family_id !== null) await revokeFamily(tx, row.family_id, 'code_replayed', now);
      return { kind: 'invalid' as const };
    }
    // Burnt by the first presentation, even a failing one; the guard makes a race lose here.
    if (!(await claimCode(tx, row.code_hash, now))) return { kind: 'invalid' as const };
    const bound = row.client_id === client.id && row.redirect_uri === redirectUri && row.expires_at > now;
    if (!bound || !VERIFIER.test(verifier) || s256(verifier) !== row.code_challenge)
      return { kind: 'invalid' as const };
    // The consent may have been revoked since the code was issued.
    if (!(await findConsent(tx, row.user_id, client.id))) return { kind: 'invalid' as const };
    const familyId = uuid();
    await insertFamily(tx, {
      id: familyId,
      client_id: client.id,
      user_id: row.user_id,
      scope: row.scope,
      auth_time: row.auth_time,
      created_at: now,
      revoked_at: null,
      revoked_reason: null,
    });
    await attachFamilyToCode(tx, row.code_hash, familyId);
    const issued = await storeTokens(tx, deps, {
      id: familyId,
      clientId: client.id,
      userId: row.user_id,
      scope: row.scope,
    });
    const wantsIdToken = deps.config.oidcIdToken && parseScope(row.scope).includes('openid');
    return {
      kind: 'ok' as const,
      ...signAhead(
        respond(
          deps,
          { ...issued, clientId: client.id, userId: row.user_id, scope: row.scope },
          wantsIdToken ? { nonce: row.nonce, authTime: row.auth_time } : null,
        ),
      ),
    };
  });
  if (outcome.kind === 'invalid') throw tokenErrors.invalidGrant();
  return outcome.response;
}

async function refreshTokenGrant(
  deps: OAuthDeps,
  client: ClientRow,
  form: URLSearchParams,
): Promise<TokenResponse> {
  const [token = ''] = required(form, 'refresh_token');
  const asked = form.get('scope');
  const now = isoNow(deps.clock);
  const outcome = await deps.commits.run(async (tx) => {
    const tokenHash = sha256Hex(token);
    const row = await findRefreshToken(tx, tokenHash);
    if (!row || row.client_id !== client.id || row.revoked_at !== null || row.expires_at <= now)
      return { kind: 'invalid' as const };
    if (row.rotated_at !== null) {
      await revokeFamily(tx, row.family_id, 'refresh_reuse', now);
      return { kind: 'reuse' as const };
    }
    let scope = row.scope;
    if (asked !== null && asked !== '') {
      const wanted = parseScope(asked);
      if (!isSubset(wanted, parseScope(row.scope))) return { kind: 'scope' as const };
      scope = joinScope(wanted, KNOWN_SCOPES);
    }
    if (!(await claimRotation(tx, tokenHash, now))) {
      await revokeFamily(tx, row.family_id, 'refresh_reuse', now);
      return { kind: 'reuse' as const };
    }
    const issued = await storeTokens(tx, deps, {
      id: row.family_id,
      clientId: client.id,
      userId: row.user_id,
      scope,
    });
    return {
      kind: 'ok' as const,
      ...signAhead(respond(deps, { ...issued, clientId: client.id, userId: row.user_id, scope }, null)),
    };
  });
  switch (outcome.kind) {
    case 'invalid':
      throw tokenErrors.invalidGrant();
    case 'reuse':
      deps.log.warn(
        { event: 'oauth.refresh_reuse', client_id: client.id },
        'refresh token reuse: family revoked',
      );
      throw tokenErrors.invalidGrant(REUSE_DETECTED);
    case 'scope':
      throw tokenErrors.invalidScope();
    case 'ok':
      return outcome.response;
  }
}

/** The parameters the token endpoint reads (others are ignored, RFC 6749 §3.2). */
const TOKEN_PARAMS = [
  'grant_type',
  'code',
  'redirect_uri',
  'code_verifier',
  'client_id',
  'client_secret',
  'refresh_token',
  'scope',
] as const;

/** POST /oauth/token. */
export async function tokenEndpoint(
  deps: OAuthDeps,
  request: { form: URLSearchParams; authorization: string | undefined },
): Promise<TokenResponse> {
  // RFC 6749 §3.2: parameters MUST NOT be included more than once (§5.2: invalid_request).
  // Reading the first of two would let a second client_id, secret or code ride along unseen.
  for (const name of TOKEN_PARAMS) {
    if (request.form.getAll(name).length > 1)
      throw tokenErrors.invalidRequest(`duplicate parameter: ${name}`);
  }
  const grantType = request.form.get('grant_type');
  if (!grantType) throw tokenErrors.invalidRequest('missing required field: grant_type');
  if (grantType !== 'authorization_code' && grantType !== 'refresh_token')
    throw tokenErrors.unsupportedGrant();
  const client = await authenticateClient(deps, credentials(request.form, request.authorization));
  return grantType === 'authorization_code'
    ? authorizationCodeGrant(deps, client, request.form)
    : refreshTokenGrant(deps, client, request.form);
}
