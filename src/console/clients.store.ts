import type { Insertable, Selectable, Updateable } from 'kysely';
import { marker, prepared, type Db } from '../db/index.js';
import type { OauthClientsTable } from '../db/tables/console.js';

export type ClientRow = Selectable<OauthClientsTable>;

export const insertClient = (db: Db, row: Insertable<OauthClientsTable>) =>
  db.insertInto('oauth_clients').values(row).execute();

const clientById = prepared(
  (db, id: string) => db.selectFrom('oauth_clients').selectAll().where('id', '=', id),
  [marker('id')],
);

/** A client by its id; compiled once, since every token request starts with it. */
export async function findClientById(db: Db, id: string): Promise<ClientRow | undefined> {
  return (await clientById(db, id))[0];
}

export const findProjectClient = (db: Db, projectId: string, id: string) =>
  db
    .selectFrom('oauth_clients')
    .selectAll()
    .where('id', '=', id)
    .where('project_id', '=', projectId)
    .executeTakeFirst();

export const listProjectClients = (db: Db, projectId: string) =>
  db
    .selectFrom('oauth_clients')
    .selectAll()
    .where('project_id', '=', projectId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();

export const listAllClients = (db: Db) =>
  db.selectFrom('oauth_clients').selectAll().orderBy('created_at').execute();

export async function countProjectClients(db: Db, projectId: string): Promise<number> {
  const row = await db
    .selectFrom('oauth_clients')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('project_id', '=', projectId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export const updateClient = (db: Db, id: string, patch: Updateable<OauthClientsTable>) =>
  db.updateTable('oauth_clients').set(patch).where('id', '=', id).execute();

export const disableProjectClients = (db: Db, projectId: string, now: string) =>
  db
    .updateTable('oauth_clients')
    .set({ status: 'disabled', updated_at: now })
    .where('project_id', '=', projectId)
    .where('status', '!=', 'disabled')
    .executeTakeFirst();

export const deleteClient = (db: Db, id: string) =>
  db.deleteFrom('oauth_clients').where('id', '=', id).execute();
