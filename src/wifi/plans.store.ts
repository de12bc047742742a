import type { Selectable, Updateable } from 'kysely';
import type { Db } from '../db/index.js';
import type { PlansTable } from '../db/tables/wifi.js';

export type PlanRow = Selectable<PlansTable>;

/** The plans or routers a list shows: not archived (`current`), archived, or `all`. */
export type ArchivedFilter = 'current' | 'archived' | 'all';

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
  options: {
    activeOnly: boolean;
    limit: number | null;
    sites: readonly string[] | null;
    /** Which plans by archiving (docs/decisions/0037); default: every one. */
    archived?: ArchivedFilter;
  },
): Promise<PlanRow[]> {
  let query = db.selectFrom('plans').selectAll();
  if (options.activeOnly) query = query.where('active', '=', 1);
  if (options.archived === 'current') query = query.where('archived_at', 'is', null);
  if (options.archived === 'archived') query = query.where('archived_at', 'is not', null);
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

/** Whether anything was ever sold on the plan: an invoice (sale, counter, voucher) or a voucher batch. */
export async function planEverUsed(db: Db, id: string): Promise<boolean> {
  const invoice = await db.selectFrom('invoices').select('id').where('plan_id', '=', id).executeTakeFirst();
  if (invoice) return true;
  const batch = await db
    .selectFrom('voucher_batches')
    .select('id')
    .where('plan_id', '=', id)
    .executeTakeFirst();
  return batch !== undefined;
}

export async function deletePlanRow(db: Db, id: string): Promise<void> {
  await db.deleteFrom('plans').where('id', '=', id).execute();
}
