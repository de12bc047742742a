import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Db } from '../db/index.js';
import { phoneSpellings } from '../lib/phone.js';
import type { StaffRole, UsersTable } from '../db/tables/identity.js';

export type UserRow = Selectable<UsersTable>;

export const insertUser = (db: Db, row: Insertable<UsersTable>) =>
  db.insertInto('users').values(row).execute();

export const findUserById = (db: Db, id: string) =>
  db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();

export const findUserByEmail = (db: Db, email: string) =>
  db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();

/**
 * The account whose phone is `phone` written any way (lib/phone.ts `phoneSpellings`, with the
 * venue's DEFAULT_COUNTRY_CODE): the one written exactly so first, should two spellings of one
 * number predate this rule.
 */
export const findUserByPhone = (db: Db, phone: string, countryCode: string) =>
  db
    .selectFrom('users')
    .selectAll()
    .where('phone', 'in', phoneSpellings(phone, countryCode))
    .orderBy(sql`phone = ${phone}`, 'desc')
    .orderBy('created_at')
    .executeTakeFirst();

/** The account a sign-in identifier names: its email, else its phone (any spelling). */
export const findUserByIdentifier = async (db: Db, identifier: string, countryCode: string) =>
  (await findUserByEmail(db, identifier)) ?? (await findUserByPhone(db, identifier, countryCode));

/**
 * An account that already holds any of these identifiers (a phone in any spelling), in either
 * column: an email that equals someone's phone would otherwise shadow that phone at login and
 * password reset.
 */
export function findUserHolding(db: Db, identifiers: readonly string[], countryCode: string) {
  const values = identifiers.filter((v) => v !== '').flatMap((v) => phoneSpellings(v, countryCode));
  if (values.length === 0) return Promise.resolve(undefined);
  return db
    .selectFrom('users')
    .selectAll()
    .where((eb) => eb.or([eb('email', 'in', values), eb('phone', 'in', values)]))
    .executeTakeFirst();
}

export const updateUser = (db: Db, id: string, patch: Updateable<UsersTable>) =>
  db.updateTable('users').set(patch).where('id', '=', id).execute();

/** Swaps the hash just verified for `to`; false when the password was changed meanwhile. */
export async function replacePasswordHash(db: Db, id: string, from: string, to: string): Promise<boolean> {
  const result = await db
    .updateTable('users')
    .set({ password_hash: to })
    .where('id', '=', id)
    .where('password_hash', '=', from)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Inside a transaction: whether the user's password hash is still `hash` (the one a login
 * verified). A write that changes nothing, so it also locks the row where the database locks
 * rows (PostgreSQL): a reset then waits for this transaction or is seen by it, never slips in
 * between the check and the session it guards.
 */
export const hasPasswordHash = (db: Db, id: string, hash: string): Promise<boolean> =>
  replacePasswordHash(db, id, hash, hash);

/**
 * Deletes the user; every row it owns goes with it (foreign keys cascade). The venue's audit trail
 * keeps what they did as staff, but no longer says who: `wifi_audit` names its actor by id and
 * email without a foreign key (the CLI is an actor too), so both are cleared here.
 */
export const deleteUser = (db: Db, id: string) =>
  db.transaction().execute(async (tx) => {
    await tx
      .updateTable('wifi_audit')
      .set({ actor_id: null, actor: DELETED_ACTOR })
      .where('actor_id', '=', id)
      .execute();
    await tx.deleteFrom('users').where('id', '=', id).execute();
  });

/** The actor of the venue's audit entries made by an account since deleted. */
export const DELETED_ACTOR = 'deleted account';

export const listStaffUsers = (db: Db) =>
  db.selectFrom('users').selectAll().where('staff_role', 'is not', null).orderBy('email').execute();

export const setStaffRole = (db: Db, id: string, role: StaffRole | null, now: string) =>
  db.updateTable('users').set({ staff_role: role, updated_at: now }).where('id', '=', id).execute();
