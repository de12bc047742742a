import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../db/index.js';
import type { SocialLoginsTable, SocialProvidersTable } from '../db/tables/identity.js';

export type SocialProviderRow = Selectable<SocialProvidersTable>;

export const findProvider = (db: Db, name: string) =>
  db.selectFrom('social_providers').selectAll().where('name', '=', name).executeTakeFirst();

export const listProviders = (db: Db) =>
  db.selectFrom('social_providers').selectAll().orderBy('name').execute();

export async function upsertProvider(db: Db, row: SocialProviderRow): Promise<void> {
  await db
    .insertInto('social_providers')
    .values(row)
    .onConflict((oc) =>
      oc.column('name').doUpdateSet({
        display_name: row.display_name,
        issuer: row.issuer,
        client_id: row.client_id,
        client_secret: row.client_secret,
        updated_at: row.updated_at,
      }),
    )
    .execute();
}

export async function deleteProvider(db: Db, name: string): Promise<boolean> {
  const r = await db.deleteFrom('social_providers').where('name', '=', name).executeTakeFirst();
  return r.numDeletedRows > 0n;
}

export const insertLogin = (db: Db, row: Insertable<SocialLoginsTable>) =>
  db.insertInto('social_logins').values(row).execute();

/** Takes a pending login (single use): the row if it was live, and marks it used. */
export async function takeLogin(db: Db, stateHash: string, provider: string, now: string) {
  const row = await db
    .selectFrom('social_logins')
    .selectAll()
    .where('state_hash', '=', stateHash)
    .where('provider', '=', provider)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  if (!row) return undefined;
  const r = await db
    .updateTable('social_logins')
    .set({ used_at: now })
    .where('state_hash', '=', stateHash)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return r.numUpdatedRows > 0n ? row : undefined;
}

export const deleteStaleLogins = (db: Db, now: string) =>
  db.deleteFrom('social_logins').where('expires_at', '<=', now).execute();

export const findLinkedUserId = async (db: Db, provider: string, subject: string) =>
  (
    await db
      .selectFrom('social_identities')
      .select('user_id')
      .where('provider', '=', provider)
      .where('subject', '=', subject)
      .executeTakeFirst()
  )?.user_id;

export const linkIdentity = (db: Db, provider: string, subject: string, userId: string, now: string) =>
  db
    .insertInto('social_identities')
    .values({ provider, subject, user_id: userId, created_at: now })
    .execute();
