import type { StaffRole } from '../db/tables/identity.js';
import { addStaff, listStaff } from '../identity/index.js';
import { isoNow } from '../lib/time.js';
import type { WifiDeps } from './deps.js';
import { wifiErrors } from './errors.js';
import { siteByRef, type SiteScope } from './sites.js';
import { replaceStaffSites, selectAllStaffSites, selectStaffSites } from './sites.store.js';

/**
 * A staff role limited to sites (DESIGN.md §4.9, docs/decisions/0024-sites.md). An owner always
 * covers every site; any other role covers every site unless it is limited to some.
 */

/** The sites a staff member's role covers now: null for every site. */
export async function staffScope(
  deps: Pick<WifiDeps, 'db'>,
  user: { id: string; staff_role: StaffRole },
): Promise<SiteScope> {
  if (user.staff_role === 'owner') return null;
  const sites = await selectStaffSites(deps.db, user.id);
  return sites.length === 0 ? null : sites;
}

/**
 * `hotspot-ctl staff add … [--site S]…`: the staff role and the sites it is limited to (slugs or
 * ids; none: every site), set together in one transaction. Refused (and nothing changed) for an
 * unknown site or an owner limited to sites.
 */
export async function addStaffForSites(
  deps: Pick<WifiDeps, 'db' | 'clock' | 'log' | 'config'>,
  input: { email: string; role: string; password?: string | undefined; sites: readonly string[] },
) {
  if (input.role === 'owner' && input.sites.length > 0) throw wifiErrors.ownerNotScoped();
  const siteIds = [
    ...new Set(await Promise.all(input.sites.map(async (ref) => (await siteByRef(deps, ref)).id))),
  ];
  const now = isoNow(deps.clock);
  const result = await addStaff(deps, input, (tx, userId) => replaceStaffSites(tx, userId, siteIds, now));
  return { ...result, staff: { ...result.staff, site_ids: siteIds.length === 0 ? null : siteIds } };
}

/** `hotspot-ctl staff list`: every staff member with the sites their role covers (null: every site). */
export async function listStaffWithSites(deps: Pick<WifiDeps, 'db'>) {
  const [staff, scoped] = [await listStaff(deps), await selectAllStaffSites(deps.db)];
  return staff.map((s) => ({
    ...s,
    site_ids: s.role === 'owner' ? null : (scoped.get(s.id) ?? null),
  }));
}
