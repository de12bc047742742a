import { uuid } from '../lib/crypto.js';
import { recordAudit, type WifiActor } from './audit.js';
import { presentPlan } from './plans.present.js';
import type { WifiDeps } from './deps.js';
import { wifiErrors } from './errors.js';
import { ADMIN_LIST_LIMIT } from './limits.js';
import {
  DEFAULT_SITE_ID,
  EVERY_SITE,
  inScope,
  siteForChange,
  siteForNew,
  sitesOf,
  type SiteScope,
  type SiteView,
} from './sites.js';
import { parsePlanChanges, parsePlanCreate, type PlanRequest, type PlanValues } from './plans.schema.js';
import {
  findPlan,
  insertPlan,
  selectPlans,
  updatePlanRow,
  type ArchivedFilter,
  type PlanRow,
} from './plans.store.js';

export type { ArchivedFilter, PlanRow } from './plans.store.js';

type Deps = Pick<WifiDeps, 'db' | 'clock'>;

/** Creates a plan from a Plan request (admin API body or CLI flags); 422 on a bad value. */
export async function createPlan(
  deps: Deps,
  request: PlanRequest,
  scope: SiteScope = null,
  actor?: WifiActor,
): Promise<PlanRow> {
  const values = parsePlanCreate(request);
  const siteId = await siteForNew(deps.db, scope, request.site_id);
  const now = deps.clock.now().toISOString();
  const row: PlanRow = {
    id: uuid(),
    ...toColumns(values),
    site_id: siteId,
    created_at: now,
    updated_at: now,
    archived_at: null,
  };
  await deps.db.transaction().execute(async (tx) => {
    await insertPlan(tx, row);
    if (actor)
      await recordAudit(tx, deps.clock, {
        actor,
        action: 'plan.create',
        target: { type: 'plan', id: row.id },
        siteId,
        after: presentPlan(row),
      });
  });
  return row;
}

/**
 * Replaces the values the request supplies and keeps the others; 404 for an unknown plan or one
 * of a site outside the scope.
 */
export async function updatePlan(
  deps: Deps,
  id: string,
  request: PlanRequest,
  scope: SiteScope = null,
  actor?: WifiActor,
): Promise<PlanRow> {
  const changes = parsePlanChanges(request);
  return deps.db.transaction().execute(async (tx) => {
    const existing = await findPlan(tx, id);
    if (!existing || !inScope(scope, existing.site_id)) throw wifiErrors.planNotFound();
    // An omitted `active` would put it back on sale (PATCH): unarchive first (docs/decisions/0037).
    if (existing.archived_at !== null) throw wifiErrors.planArchived();
    const siteId = await siteForChange(tx, scope, request.site_id);
    await updatePlanRow(tx, id, {
      ...toColumns(changes),
      ...(siteId !== undefined && { site_id: siteId }),
      updated_at: deps.clock.now().toISOString(),
    });
    const updated = (await findPlan(tx, id)) as PlanRow;
    if (actor)
      await recordAudit(tx, deps.clock, {
        actor,
        action: 'plan.update',
        target: { type: 'plan', id },
        siteId: updated.site_id,
        before: presentPlan(existing),
        after: presentPlan(updated),
      });
    return updated;
  });
}

/**
 * PATCH /api/v1/admin/plans/{id} (wifi-access-api.md §4.3): the supplied values are replaced, and
 * an omitted `active` means active again. An omitted `site_id` keeps the plan's site.
 */
export const replacePlanValues = (
  deps: Deps,
  id: string,
  request: PlanRequest,
  scope: SiteScope = null,
  actor?: WifiActor,
): Promise<PlanRow> => updatePlan(deps, id, { ...request, active: request.active ?? true }, scope, actor);

/**
 * GET /api/v1/admin/plans: the plans of the sites in view, on sale or not, in portal order; at
 * most 200. Archived ones only when asked (`?status=archived|all`, docs/decisions/0037).
 */
export async function listPlans(
  deps: Pick<WifiDeps, 'db'>,
  view: SiteView = EVERY_SITE,
  archived: ArchivedFilter = 'current',
): Promise<PlanRow[]> {
  const sites = await sitesOf(deps.db, view);
  return selectPlans(deps.db, { activeOnly: false, limit: ADMIN_LIST_LIMIT, sites, archived });
}

/** `hotspot-ctl plans list`: every plan (of one site), however many (docs/decisions/0007-admin-api.md). */
export function listAllPlans(
  deps: Pick<WifiDeps, 'db'>,
  siteId?: string,
  archived: ArchivedFilter = 'current',
): Promise<PlanRow[]> {
  return selectPlans(deps.db, {
    activeOnly: false,
    limit: null,
    sites: siteId === undefined ? null : [siteId],
    archived,
  });
}

/** What guests of a site may buy: its active plans by sort_order, then price, then name. */
export function listActivePlans(
  deps: Pick<WifiDeps, 'db'>,
  siteId: string = DEFAULT_SITE_ID,
): Promise<PlanRow[]> {
  return selectPlans(deps.db, { activeOnly: true, limit: null, sites: [siteId] });
}

export function getPlan(deps: Pick<WifiDeps, 'db'>, id: string): Promise<PlanRow | undefined> {
  return findPlan(deps.db, id);
}

type PlanColumns = Omit<PlanRow, 'id' | 'site_id' | 'created_at' | 'updated_at' | 'archived_at'>;

/** Domain values → columns; only the values given. */
function toColumns(values: PlanValues): PlanColumns;
function toColumns(values: Partial<PlanValues>): Partial<PlanColumns>;
function toColumns(values: Partial<PlanValues>): Partial<PlanRow> {
  const columns: Partial<PlanRow> = {};
  if (values.name !== undefined) columns.name = values.name;
  if (values.description !== undefined) columns.description = values.description;
  if (values.priceTzs !== undefined) columns.price_tzs = values.priceTzs;
  if (values.durationSeconds !== undefined) columns.duration_seconds = values.durationSeconds;
  if (values.dataLimitBytes !== undefined) columns.data_limit_bytes = values.dataLimitBytes;
  if (values.active !== undefined) columns.active = values.active ? 1 : 0;
  if (values.sortOrder !== undefined) columns.sort_order = values.sortOrder;
  if (values.maxDevices !== undefined) columns.max_devices = values.maxDevices;
  if (values.downloadKbps !== undefined) columns.download_kbps = values.downloadKbps;
  if (values.uploadKbps !== undefined) columns.upload_kbps = values.uploadKbps;
  if (values.rememberDevice !== undefined) columns.remember_device = values.rememberDevice ? 1 : 0;
  return columns;
}
