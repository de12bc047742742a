import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../db/index.js';
import type { SigningKeysTable } from '../db/tables/oauth.js';

export type SigningKeyRow = Selectable<SigningKeysTable>;

export const listKeys = (db: Db) =>
  db.selectFrom('signing_keys').selectAll().orderBy('signs_from').orderBy('created_at').execute();

export const insertKey = (db: Db, row: Insertable<SigningKeysTable>) =>
  db.insertInto('signing_keys').values(row).execute();

/**
 * Every key that would still be signing at `at` hands over then: keys not yet retired, and keys
 * due to retire later (a `rotate --now` cuts short an earlier rotation's hand-over).
 */
export const retireSigningKeys = (db: Db, at: string, unpublishAt: string) =>
  db
    .updateTable('signing_keys')
    .set({ retired_at: at, unpublish_at: unpublishAt })
    .where((eb) => eb.or([eb('retired_at', 'is', null), eb('retired_at', '>', at)]))
    .execute();

/**
 * Ends every key published at `at` (a key that may have leaked): retired and unpublished then,
 * so tokens signed with them stop verifying. Returns their kids.
 */
export async function unpublishKeys(db: Db, at: string): Promise<string[]> {
  const published = await db
    .selectFrom('signing_keys')
    .select('kid')
    .where((eb) => eb.or([eb('unpublish_at', 'is', null), eb('unpublish_at', '>', at)]))
    .orderBy('signs_from')
    .execute();
  await db
    .updateTable('signing_keys')
    .set({ retired_at: at })
    .where((eb) => eb.or([eb('retired_at', 'is', null), eb('retired_at', '>', at)]))
    .execute();
  await db
    .updateTable('signing_keys')
    .set({ unpublish_at: at })
    .where((eb) => eb.or([eb('unpublish_at', 'is', null), eb('unpublish_at', '>', at)]))
    .execute();
  return published.map((k) => k.kid);
}

export const listUnpublished = (db: Db, now: string) =>
  db.selectFrom('signing_keys').select('kid').where('unpublish_at', '<=', now).execute();

export const deleteKey = (db: Db, kid: string) =>
  db.deleteFrom('signing_keys').where('kid', '=', kid).execute();
