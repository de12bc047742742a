import type { Selectable, Updateable } from 'kysely';
import type { Db } from '../db/index.js';
import type { PlansTable } from '../db/tables/wifi.js';

export type PlanRow = Selectable<PlansTable>;

export async function insertPlan(db: Db, row: PlanRow): Promise<void> {
  await db.insertInto('plans').values(row).execute();
}

export async function updatePlanRow(db: Db, id: string, changes: Updateable<PlansTable>): Promise<boolean> {
  const result = await db.updateTable('plans').set(changes).where('id', '=', id).executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export function findPlan(db: Db, id: string): Promise<PlanRow | undefined> {
  return db.selectFrom('plans').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * Plans in the order the portal shows them, of `sites` (null: every site); the first `limit` of
 * them unless it is null.
 */
export function selectPlans(
  db: Db,
  options: { activeOnly: boolean; limit: number | null; sites: readonly string[] | null },
): Promise<PlanRow[]> {
  let query = db.selectFrom('plans').selectAll();
  if (options.activeOnly) query = query.where('active', '=', 1);
  if (options.sites !== null) query = query.where('site_id', 'in', options.sites);
  query = query.orderBy('sort_order').orderBy('price_tzs').orderBy('name').orderBy('id');
  if (options.limit !== null) query = query.limit(options.limit);
  return query.execute();
}

/** Whether a plan of the site on sale remembers devices (its routers then try MAC authentication). */
export async function siteRemembersDevices(db: Db, siteId: string): Promise<boolean> {
  const row = await db
    .selectFrom('plans')
    .select('id')
    .where('site_id', '=', siteId)
    .where('active', '=', 1)
    .where('remember_device', '=', 1)
    .executeTakeFirst();
  return row !== undefined;
}
