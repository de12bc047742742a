import type { Selectable, Updateable } from 'kysely';
import type { Db } from '../db/index.js';
import type { SitesTable } from '../db/tables/sites.js';

export type SiteRow = Selectable<SitesTable>;

export async function insertSite(db: Db, row: SiteRow): Promise<void> {
  await db.insertInto('sites').values(row).execute();
}

export async function updateSiteRow(db: Db, id: string, changes: Updateable<SitesTable>): Promise<void> {
  await db.updateTable('sites').set(changes).where('id', '=', id).execute();
}

export function findSite(db: Db, id: string): Promise<SiteRow | undefined> {
  return db.selectFrom('sites').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findSiteBySlug(db: Db, slug: string): Promise<SiteRow | undefined> {
  return db.selectFrom('sites').selectAll().where('slug', '=', slug).executeTakeFirst();
}

/** Sites by name (the default one first), only those in `ids` unless it is null. */
export function selectSites(db: Db, ids: readonly string[] | null): Promise<SiteRow[]> {
  return db
    .selectFrom('sites')
    .selectAll()
    .$if(ids !== null, (q) => q.where('id', 'in', ids ?? []))
    .orderBy((eb) => eb.case().when('id', '=', 'default').then(0).else(1).end())
    .orderBy('name')
    .orderBy('id')
    .execute();
}

export async function countSites(db: Db): Promise<number> {
  const row = await db
    .selectFrom('sites')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The sites a staff member's role is limited to; empty: every site. */
export async function selectStaffSites(db: Db, userId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('staff_sites')
    .select('site_id')
    .where('user_id', '=', userId)
    .orderBy('site_id')
    .execute();
  return rows.map((r) => r.site_id);
}

/** Every scoped staff member's sites, user id → site ids. */
export async function selectAllStaffSites(db: Db): Promise<Map<string, string[]>> {
  const rows = await db.selectFrom('staff_sites').select(['user_id', 'site_id']).orderBy('site_id').execute();
  const out = new Map<string, string[]>();
  for (const r of rows) out.set(r.user_id, [...(out.get(r.user_id) ?? []), r.site_id]);
  return out;
}

/** Replaces a staff member's sites with `siteIds` (empty: every site again). */
export async function replaceStaffSites(
  db: Db,
  userId: string,
  siteIds: readonly string[],
  now: string,
): Promise<void> {
  await db.deleteFrom('staff_sites').where('user_id', '=', userId).execute();
  if (siteIds.length === 0) return;
  await db
    .insertInto('staff_sites')
    .values(siteIds.map((siteId) => ({ user_id: userId, site_id: siteId, created_at: now })))
    .execute();
}
