import type { Insertable } from 'kysely';
import type { Db } from '../db/index.js';
import type { MfaChallengesTable, MfaRecoveryCodesTable } from '../db/tables/identity.js';

export const insertChallenge = (db: Db, row: Insertable<MfaChallengesTable>) =>
  db.insertInto('mfa_challenges').values(row).execute();

export const findLiveChallenge = (db: Db, tokenHash: string, now: string, maxAttempts: number) =>
  db
    .selectFrom('mfa_challenges')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .where('attempts', '<', maxAttempts)
    .executeTakeFirst();

export const countChallengeMiss = (db: Db, id: string) =>
  db
    .updateTable('mfa_challenges')
    .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .where('id', '=', id)
    .execute();

export const useChallenge = (db: Db, id: string, now: string) =>
  db.updateTable('mfa_challenges').set({ used_at: now }).where('id', '=', id).execute();

/** Marks every unused challenge of the user used. */
export const useUserChallenges = (db: Db, userId: string, now: string) =>
  db
    .updateTable('mfa_challenges')
    .set({ used_at: now })
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .execute();

export const replaceRecoveryCodes = async (
  db: Db,
  userId: string,
  rows: Insertable<MfaRecoveryCodesTable>[],
) => {
  await db.deleteFrom('mfa_recovery_codes').where('user_id', '=', userId).execute();
  if (rows.length > 0) await db.insertInto('mfa_recovery_codes').values(rows).execute();
};

/** Uses a recovery code: true when an unused code with that hash existed. */
export async function useRecoveryCode(
  db: Db,
  userId: string,
  codeHash: string,
  now: string,
): Promise<boolean> {
  const result = await db
    .updateTable('mfa_recovery_codes')
    .set({ used_at: now })
    .where('user_id', '=', userId)
    .where('code_hash', '=', codeHash)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Wrong codes given for the user's MFA challenges since `since` (a per-account guess budget). */
export async function recentChallengeMisses(db: Db, userId: string, since: string): Promise<number> {
  const row = await db
    .selectFrom('mfa_challenges')
    .select((eb) => eb.fn.sum<number | string | null>('attempts').as('n'))
    .where('user_id', '=', userId)
    .where('created_at', '>', since)
    .executeTakeFirstOrThrow();
  return Number(row.n ?? 0);
}
