import type { Insertable } from 'kysely';
import { marker, prepared, type Db } from '../db/index.js';
import type { OauthCodesTable, OauthConsentsTable, OauthRefreshFamiliesTable } from '../db/tables/oauth.js';

/* Consents */

export const findConsent = (db: Db, userId: string, clientId: string) =>
  db
    .selectFrom('oauth_consents')
    .selectAll()
    .where('user_id', '=', userId)
    .where('client_id', '=', clientId)
    .executeTakeFirst();

export const insertConsent = (db: Db, row: Insertable<OauthConsentsTable>) =>
  db.insertInto('oauth_consents').values(row).execute();

export const updateConsentScope = (db: Db, userId: string, clientId: string, scope: string, now: string) =>
  db
    .updateTable('oauth_consents')
    .set({ scope, updated_at: now })
    .where('user_id', '=', userId)
    .where('client_id', '=', clientId)
    .execute();

export async function deleteConsent(db: Db, userId: string, clientId: string): Promise<boolean> {
  const r = await db
    .deleteFrom('oauth_consents')
    .where('user_id', '=', userId)
    .where('client_id', '=', clientId)
    .executeTakeFirst();
  return r.numDeletedRows > 0n;
}

export const listConsents = (db: Db, userId: string) =>
  db
    .selectFrom('oauth_consents')
    .innerJoin('oauth_clients', 'oauth_clients.id', 'oauth_consents.client_id')
    .select([
      'oauth_consents.client_id',
      'oauth_clients.name as client_name',
      'oauth_consents.scope',
      'oauth_consents.granted_at',
    ])
    .where('oauth_consents.user_id', '=', userId)
    .orderBy('oauth_consents.granted_at', 'desc')
    .execute();

/* Authorization codes */

export const insertCode = (db: Db, row: Insertable<OauthCodesTable>) =>
  db.insertInto('oauth_codes').values(row).execute();

export const findCode = (db: Db, codeHash: string) =>
  db.selectFrom('oauth_codes').selectAll().where('code_hash', '=', codeHash).executeTakeFirst();

/** Marks a code used; false when it already was (the guard holds on any database, not only SQLite). */
export async function claimCode(db: Db, codeHash: string, now: string): Promise<boolean> {
  const r = await db
    .updateTable('oauth_codes')
    .set({ used_at: now })
    .where('code_hash', '=', codeHash)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return r.numUpdatedRows > 0n;
}

export const attachFamilyToCode = (db: Db, codeHash: string, familyId: string) =>
  db.updateTable('oauth_codes').set({ family_id: familyId }).where('code_hash', '=', codeHash).execute();

/* Refresh families and tokens */

export const insertFamily = (db: Db, row: Insertable<OauthRefreshFamiliesTable>) =>
  db.insertInto('oauth_refresh_families').values(row).execute();

/*
 * The refresh grant's statements are compiled once (src/db/prepared.ts): the token endpoint runs
 * them for every grant, and kysely's building and compiling would otherwise cost more than
 * SQLite's own work.
 */

const refreshTokenInsert = prepared(
  (db, tokenHash: string, familyId: string, createdAt: string, expiresAt: string) =>
    db.insertInto('oauth_refresh_tokens').values({
      token_hash: tokenHash,
      family_id: familyId,
      created_at: createdAt,
      expires_at: expiresAt,
      rotated_at: null,
    }),
  [marker('hash'), marker('family'), marker('created'), marker('expires')],
);

/** A new, current (unrotated) refresh token of a family. */
export async function insertRefreshToken(
  db: Db,
  row: { token_hash: string; family_id: string; created_at: string; expires_at: string },
): Promise<void> {
  await refreshTokenInsert(db, row.token_hash, row.family_id, row.created_at, row.expires_at);
}

const refreshTokenByHash = prepared(
  (db, tokenHash: string) =>
    db
      .selectFrom('oauth_refresh_tokens')
      .innerJoin('oauth_refresh_families', 'oauth_refresh_families.id', 'oauth_refresh_tokens.family_id')
      .select([
        'oauth_refresh_tokens.family_id',
        'oauth_refresh_tokens.expires_at',
        'oauth_refresh_tokens.rotated_at',
        'oauth_refresh_families.client_id',
        'oauth_refresh_families.user_id',
        'oauth_refresh_families.scope',
        'oauth_refresh_families.auth_time',
        'oauth_refresh_families.revoked_at',
      ])
      .where('oauth_refresh_tokens.token_hash', '=', tokenHash),
  [marker('hash')],
);

/** A refresh token with its family, by the token's hash. */
export async function findRefreshToken(db: Db, tokenHash: string) {
  return (await refreshTokenByHash(db, tokenHash))[0];
}

const rotation = prepared(
  (db, tokenHash: string, now: string) =>
    db
      .updateTable('oauth_refresh_tokens')
      .set({ rotated_at: now })
      .where('token_hash', '=', tokenHash)
      .where('rotated_at', 'is', null)
      .returning('token_hash'),
  [marker('hash'), marker('now')],
);

/** Marks a refresh token rotated; false when it already was (a concurrent use of the same token). */
export async function claimRotation(db: Db, tokenHash: string, now: string): Promise<boolean> {
  return (await rotation(db, tokenHash, now)).length > 0;
}

/** Revokes one family and kills its access tokens. */
export async function revokeFamily(db: Db, familyId: string, reason: string, now: string): Promise<void> {
  await db
    .updateTable('oauth_refresh_families')
    .set({ revoked_at: now, revoked_reason: reason })
    .where('id', '=', familyId)
    .where('revoked_at', 'is', null)
    .execute();
  await db
    .updateTable('oauth_access_tokens')
    .set({ revoked_at: now })
    .where('family_id', '=', familyId)
    .where('revoked_at', 'is', null)
    .execute();
}

/** Revokes everything a user granted a client: families and every live access token. */
export async function revokeUserClientGrants(
  db: Db,
  userId: string,
  clientId: string,
  reason: string,
  now: string,
): Promise<void> {
  await db
    .updateTable('oauth_refresh_families')
    .set({ revoked_at: now, revoked_reason: reason })
    .where('user_id', '=', userId)
    .where('client_id', '=', clientId)
    .where('revoked_at', 'is', null)
    .execute();
  await db
    .updateTable('oauth_access_tokens')
    .set({ revoked_at: now })
    .where('user_id', '=', userId)
    .where('client_id', '=', clientId)
    .where('revoked_at', 'is', null)
    .execute();
  // Codes issued but not yet exchanged die too: the app must not get tokens the user just refused.
  await db
    .updateTable('oauth_codes')
    .set({ used_at: now })
    .where('user_id', '=', userId)
    .where('client_id', '=', clientId)
    .where('used_at', 'is', null)
    .execute();
}

/* Access tokens */

const accessTokenInsert = prepared(
  (
    db,
    jti: string,
    clientId: string,
    userId: string,
    familyId: string,
    scope: string,
    expiresAt: string,
    createdAt: string,
  ) =>
    db.insertInto('oauth_access_tokens').values({
      jti,
      client_id: clientId,
      user_id: userId,
      family_id: familyId,
      scope,
      expires_at: expiresAt,
      revoked_at: null,
      created_at: createdAt,
    }),
  [
    marker('jti'),
    marker('client'),
    marker('user'),
    marker('family'),
    marker('scope'),
    marker('expires'),
    marker('created'),
  ],
);

/** The record of a new access token (its jti): what the bearer check looks up. Compiled once. */
export async function insertAccessToken(
  db: Db,
  row: {
    jti: string;
    client_id: string;
    user_id: string;
    family_id: string;
    scope: string;
    expires_at: string;
    created_at: string;
  },
): Promise<void> {
  await accessTokenInsert(
    db,
    row.jti,
    row.client_id,
    row.user_id,
    row.family_id,
    row.scope,
    row.expires_at,
    row.created_at,
  );
}

/**
 * The bearer hot path in one statement, compiled once (src/db/prepared.ts): the access token by
 * its primary key, not revoked, its client not disabled (a disabled client's tokens stop working
 * at once), joined with the claim fields of its user by theirs, so userinfo needs no second query
 * (docs/decisions/0005-oauth-provider.md). The result is kept until a write to one of the three
 * tables (this process's, or any other's commit: connect.ts, the PostgreSQL change feed), so a
 * revocation, a disabled client or a changed claim shows on the next request, as before; an app
 * calling userinfo again with the same token reads no row (docs/decisions/0048). The expiry is
 * compared by the caller, so the kept result does not depend on the time.
 */
const liveBearer = prepared(
  (db, jti: string) =>
    db
      .selectFrom('oauth_access_tokens as t')
      .innerJoin('oauth_clients as c', 'c.id', 't.client_id')
      .innerJoin('users as u', 'u.id', 't.user_id')
      .select([
        't.user_id',
        't.client_id',
        't.scope',
        't.expires_at',
        'u.email',
        'u.email_verified',
        'u.phone',
        'u.phone_verified',
        'u.display_name',
        'u.avatar_url',
      ])
      .where('t.jti', '=', jti)
      .where('t.revoked_at', 'is', null)
      .where('c.status', '!=', 'disabled'),
  [marker('jti')],
  { cacheUntilWritten: { tables: ['oauth_access_tokens', 'oauth_clients', 'users'], maxEntries: 10_000 } },
);

/** The token `jti` if it is live at `now` (ISO time), with its user's claim fields. */
export async function findLiveBearer(db: Db, jti: string, now: string) {
  const row = (await liveBearer(db, jti))[0];
  return row !== undefined && row.expires_at > now ? row : undefined;
}

/* Statistics and housekeeping */

const count = async (q: { executeTakeFirstOrThrow(): Promise<{ n: number | string | bigint }> }) =>
  Number((await q.executeTakeFirstOrThrow()).n);

export async function clientCounts(db: Db, clientId: string, now: string) {
  return {
    connected_users: await count(
      db
        .selectFrom('oauth_consents')
        .select((eb) => eb.fn.count<number>('user_id').distinct().as('n'))
        .where('client_id', '=', clientId),
    ),
    // A grant is active while its family is not revoked and its current refresh token is live.
    active_grants: await count(
      db
        .selectFrom('oauth_refresh_families as f')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('f.client_id', '=', clientId)
        .where('f.revoked_at', 'is', null)
        .where((eb) =>
          eb.exists(
            eb
              .selectFrom('oauth_refresh_tokens as t')
              .select('t.token_hash')
              .whereRef('t.family_id', '=', 'f.id')
              .where('t.rotated_at', 'is', null)
              .where('t.expires_at', '>', now),
          ),
        ),
    ),
    live_access_tokens: await count(
      db
        .selectFrom('oauth_access_tokens')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('client_id', '=', clientId)
        .where('revoked_at', 'is', null)
        .where('expires_at', '>', now),
    ),
  };
}

/** Deletes what can no longer be used: expired codes and access tokens, spent refresh tokens. */
export async function deleteExpired(db: Db, now: string): Promise<void> {
  await db.deleteFrom('oauth_codes').where('expires_at', '<', now).execute();
  await db.deleteFrom('oauth_access_tokens').where('expires_at', '<', now).execute();
  await db.deleteFrom('oauth_refresh_tokens').where('expires_at', '<', now).execute();
}
