import type { Insertable } from 'kysely';
import type { Db } from '../db/index.js';
import type { SessionsTable } from '../db/tables/identity.js';

export const insertSession = (db: Db, row: Insertable<SessionsTable>) =>
  db.insertInto('sessions').values(row).execute();

/** The live session for a cookie, with its user. */
export const findLiveSessionByHash = (db: Db, tokenHash: string, now: string) =>
  db
    .selectFrom('sessions')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .where('expires_at', '>', now)
    .executeTakeFirst();

export const touchSession = (db: Db, id: string, lastUsedAt: string, expiresAt: string) =>
  db
    .updateTable('sessions')
    .set({ last_used_at: lastUsedAt, expires_at: expiresAt })
    .where('id', '=', id)
    .execute();

export const listLiveSessions = (db: Db, userId: string, now: string) =>
  db
    .selectFrom('sessions')
    .selectAll()
    .where('user_id', '=', userId)
    .where('expires_at', '>', now)
    .orderBy('last_used_at', 'desc')
    .orderBy('created_at', 'desc')
    .execute();

/** Deletes one session of the user; 0 rows when it is not theirs or does not exist. */
export async function deleteUserSession(db: Db, userId: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('sessions')
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

export const deleteSessionById = (db: Db, id: string) =>
  db.deleteFrom('sessions').where('id', '=', id).execute();

export const deleteAllUserSessions = (db: Db, userId: string) =>
  db.deleteFrom('sessions').where('user_id', '=', userId).execute();

export const deleteExpiredSessions = (db: Db, now: string) =>
  db.deleteFrom('sessions').where('expires_at', '<=', now).execute();
