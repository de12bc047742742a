import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../db/index.js';
import type { PasskeyCeremonyKind, PasskeyChallengesTable, PasskeysTable } from '../db/tables/identity.js';

export type PasskeyRow = Selectable<PasskeysTable>;
export type PasskeyChallengeRow = Selectable<PasskeyChallengesTable>;

export const insertPasskey = (db: Db, row: Insertable<PasskeysTable>) =>
  db.insertInto('passkeys').values(row).execute();

export const findPasskeyById = (db: Db, id: string) =>
  db.selectFrom('passkeys').selectAll().where('id', '=', id).executeTakeFirst();

/** The user's passkeys, newest first. */
export const listUserPasskeys = (db: Db, userId: string) =>
  db
    .selectFrom('passkeys')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .execute();

/** Deletes one passkey of the user and returns it; undefined when it is not theirs or does not exist. */
export const deleteUserPasskey = (db: Db, userId: string, id: string) =>
  db
    .deleteFrom('passkeys')
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .returningAll()
    .executeTakeFirst();

/**
 * Records a sign-in: the new counter and the time. Compare-and-set on the counter the caller
 * verified against, so two assertions racing each other cannot both move it.
 */
export async function recordPasskeyUse(
  db: Db,
  input: { id: string; seenCounter: number; newCounter: number; usedAt: string },
): Promise<boolean> {
  const result = await db
    .updateTable('passkeys')
    .set({ counter: input.newCounter, last_used_at: input.usedAt })
    .where('id', '=', input.id)
    .where('counter', '=', input.seenCounter)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export const insertPasskeyChallenge = (db: Db, row: Insertable<PasskeyChallengesTable>) =>
  db.insertInto('passkey_challenges').values(row).execute();

/**
 * Uses up the live challenge behind a token in one statement (so it is used at most once, even
 * by two finish calls at the same time) and returns it; undefined when there is none: unknown
 * token, another ceremony kind, another user's, expired or already used.
 */
export const takePasskeyChallenge = (
  db: Db,
  input: { tokenHash: string; kind: PasskeyCeremonyKind; userId?: string; now: string },
) => {
  let query = db
    .updateTable('passkey_challenges')
    .set({ used_at: input.now })
    .where('token_hash', '=', input.tokenHash)
    .where('kind', '=', input.kind)
    .where('used_at', 'is', null)
    .where('expires_at', '>', input.now);
  if (input.userId !== undefined) query = query.where('user_id', '=', input.userId);
  return query.returningAll().executeTakeFirst();
};

export const deleteExpiredPasskeyChallenges = (db: Db, now: string) =>
  db.deleteFrom('passkey_challenges').where('expires_at', '<=', now).execute();
