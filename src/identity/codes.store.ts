import type { Insertable } from 'kysely';
import type { Db } from '../db/index.js';
import type { VerificationCodesTable } from '../db/tables/identity.js';

type Channel = VerificationCodesTable['channel'];

export const insertCode = (db: Db, row: Insertable<VerificationCodesTable>) =>
  db.insertInto('verification_codes').values(row).execute();

export const deleteCode = (db: Db, id: string) =>
  db.deleteFrom('verification_codes').where('id', '=', id).execute();

export async function countCodesSince(
  db: Db,
  userId: string,
  channel: Channel,
  since: string,
): Promise<number> {
  const row = await db
    .selectFrom('verification_codes')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('user_id', '=', userId)
    .where('channel', '=', channel)
    .where('created_at', '>', since)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The most recent code of a channel that has not been used. */
export const findLatestUnusedCode = (db: Db, userId: string, channel: Channel) =>
  db
    .selectFrom('verification_codes')
    .selectAll()
    .where('user_id', '=', userId)
    .where('channel', '=', channel)
    .where('consumed_at', 'is', null)
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .executeTakeFirst();

export const countAttempt = (db: Db, id: string) =>
  db
    .updateTable('verification_codes')
    .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .where('id', '=', id)
    .execute();

/** Marks every unused code of the channel used (accepted, or replaced by a newer one). */
export const consumeCodes = (db: Db, userId: string, channel: Channel, now: string) =>
  db
    .updateTable('verification_codes')
    .set({ consumed_at: now })
    .where('user_id', '=', userId)
    .where('channel', '=', channel)
    .where('consumed_at', 'is', null)
    .execute();

/** Retires every unused code of the channel but `keepId` (a newer code was delivered). */
export const retireOtherCodes = (db: Db, userId: string, channel: Channel, keepId: string, now: string) =>
  db
    .updateTable('verification_codes')
    .set({ consumed_at: now })
    .where('user_id', '=', userId)
    .where('channel', '=', channel)
    .where('consumed_at', 'is', null)
    .where('id', '!=', keepId)
    .execute();
