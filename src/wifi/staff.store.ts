import type { Insertable } from 'kysely';
import type { Db } from '../db/index.js';
import type { AdminSessionsTable } from '../db/tables/wifi.js';

export const insertAdminSession = (db: Db, row: Insertable<AdminSessionsTable>) =>
  db.insertInto('admin_sessions').values(row).execute();

export const findLiveAdminSession = (db: Db, tokenHash: string, now: string) =>
  db
    .selectFrom('admin_sessions')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .where('expires_at', '>', now)
    .executeTakeFirst();

export const touchAdminSession = (db: Db, id: string, now: string) =>
  db.updateTable('admin_sessions').set({ last_used_at: now }).where('id', '=', id).execute();

export const deleteAdminSession = (db: Db, id: string) =>
  db.deleteFrom('admin_sessions').where('id', '=', id).execute();

export const deleteExpiredAdminSessions = (db: Db, now: string) =>
  db.deleteFrom('admin_sessions').where('expires_at', '<=', now).execute();
