import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../db/index.js';
import type { SigningKeysTable } from '../db/tables/oauth.js';

export type SigningKeyRow = Selectable<SigningKeysTable>;

export const listKeys = (db: Db) =>
  db.selectFrom('signing_keys').selectAll().orderBy('signs_from').orderBy('created_at').execute();

export const insertKey = (db: Db, row: Insertable<SigningKeysTable>) =>
  db.insertInto('signing_keys').values(row).execute();

/** Every key still signing (not yet superseded) hands over at `at`. */
export const retireSigningKeys = (db: Db, at: string, unpublishAt: string) =>
  db
    .updateTable('signing_keys')
    .set({ retired_at: at, unpublish_at: unpublishAt })
    .where('retired_at', 'is', null)
    .execute();

export const listUnpublished = (db: Db, now: string) =>
  db.selectFrom('signing_keys').select('kid').where('unpublish_at', '<=', now).execute();

export const deleteKey = (db: Db, kid: string) =>
  db.deleteFrom('signing_keys').where('kid', '=', kid).execute();
