import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../db/index.js';
import type { ProjectsTable } from '../db/tables/console.js';

export type ProjectRow = Selectable<ProjectsTable>;

export const insertProject = (db: Db, row: Insertable<ProjectsTable>) =>
  db.insertInto('projects').values(row).execute();

/** The owner's project; another owner's is indistinguishable from a missing one. */
export const findOwnedProject = (db: Db, ownerId: string, id: string) =>
  db
    .selectFrom('projects')
    .selectAll()
    .where('id', '=', id)
    .where('owner_id', '=', ownerId)
    .executeTakeFirst();

export const listOwnedProjects = (db: Db, ownerId: string) =>
  db
    .selectFrom('projects')
    .selectAll()
    .where('owner_id', '=', ownerId)
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .execute();

export async function countActiveProjects(db: Db, ownerId: string): Promise<number> {
  const row = await db
    .selectFrom('projects')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('owner_id', '=', ownerId)
    .where('archived', '=', 0)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Slugs that start with `base` (candidates for base, base-2, base-3 …). */
export const slugsLike = async (db: Db, base: string): Promise<Set<string>> =>
  new Set(
    (
      await db
        .selectFrom('projects')
        .select('slug')
        .where('slug', 'like', `${base.replace(/[%_\\]/g, '\\$&')}%`)
        .execute()
    ).map((r) => r.slug),
  );

export const renameProject = (db: Db, id: string, name: string, now: string) =>
  db.updateTable('projects').set({ name, updated_at: now }).where('id', '=', id).execute();

export const archiveProject = (db: Db, id: string, now: string) =>
  db.updateTable('projects').set({ archived: 1, updated_at: now }).where('id', '=', id).execute();
