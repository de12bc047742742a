import type { Insertable } from 'kysely';
import type { Db } from '../db/index.js';
import type { PasswordResetsTable, ResetCodeMissesTable } from '../db/tables/identity.js';

type Kind = PasswordResetsTable['kind'];

export const insertReset = (db: Db, row: Insertable<PasswordResetsTable>) =>
  db.insertInto('password_resets').values(row).execute();

export const findLiveReset = (db: Db, kind: Kind, tokenHash: string, now: string, maxAttempts: number) =>
  db
    .selectFrom('password_resets')
    .selectAll()
    .where('kind', '=', kind)
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .where('attempts', '<', maxAttempts)
    .executeTakeFirst();

/** Every live SMS code counts a wrong guess (the reset call names no account). */
export const countSmsResetMiss = (db: Db, now: string) =>
  db
    .updateTable('password_resets')
    .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .where('kind', '=', 'sms')
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .execute();

export const retireUserResets = (db: Db, userId: string, now: string, kind?: Kind) => {
  let q = db
    .updateTable('password_resets')
    .set({ used_at: now })
    .where('user_id', '=', userId)
    .where('used_at', 'is', null);
  if (kind) q = q.where('kind', '=', kind);
  return q.execute();
};

/** Wrong SMS codes from one client address block since `since`. */
export async function countMissesSince(db: Db, source: string, since: string): Promise<number> {
  const row = await db
    .selectFrom('reset_code_misses')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('source', '=', source)
    .where('created_at', '>', since)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export const insertMiss = (db: Db, row: Insertable<ResetCodeMissesTable>) =>
  db.insertInto('reset_code_misses').values(row).execute();

/** Forgets misses that no longer count (at or before `since`). */
export const pruneMisses = (db: Db, since: string) =>
  db.deleteFrom('reset_code_misses').where('created_at', '<=', since).execute();
