import type { Updateable } from 'kysely';
import type { Db } from '../db/index.js';
import type { SitesTable } from '../db/tables/sites.js';
import { uuid } from '../lib/crypto.js';
import { recordAudit, type WifiActor } from './audit.js';
import { isUniqueViolation } from './db-errors.js';
import { presentSite } from './sites.present.js';
import type { WifiDeps } from './deps.js';
import { wifiErrors } from './errors.js';
import { accountColumns } from './sites-accounts.js';
import { parseSiteChanges, parseSiteCreate, type SiteRequest, type SiteValues } from './sites.schema.js';
import {
  countSites,
  findSite,
  findSiteBySlug,
  insertSite,
  selectSites,
  updateSiteRow,
  type SiteRow,
} from './sites.store.js';

export type { SiteRow } from './sites.store.js';

/**
 * Sites (DESIGN.md §4.9, docs/decisions/0024-sites.md): a site groups routers, plans, the
 * portal's branding, a time zone and a staff scope. Every box has the `default` site; a venue
 * that never adds another never sees the word.
 */
export const DEFAULT_SITE_ID = 'default';

/**
 * The sites a staff member may see and change: null for every site (owners, unscoped staff, the
 * CLI on the box), else the ids their role is limited to (never empty).
 */
export type SiteScope = readonly string[] | null;

/** What a staff list shows: the member's scope, narrowed by the `?site_id=` they asked for. */
export interface SiteView {
  scope: SiteScope;
  siteId?: string | undefined;
  /** The query parameter `siteId` came from, named in the 422 (`site_id` unless told). */
  param?: 'site' | 'site_id';
}

/** The CLI and the daemon's own jobs: every site. */
export const EVERY_SITE: SiteView = { scope: null };

export const inScope = (scope: SiteScope, siteId: string): boolean =>
  scope === null || scope.includes(siteId);

/**
 * The sites a list covers: the scope, or the one site asked for when the scope holds it. A site
 * outside the scope reads as unknown (422), the same as one that does not exist.
 */
export async function sitesOf(db: Db, view: SiteView): Promise<SiteScope> {
  if (view.siteId === undefined || view.siteId === '') return view.scope;
  return [await visibleSite(db, view.scope, view.siteId, view.param)];
}

/**
 * The id of a site the scope holds, from a request's `site_id` (or the reports' `site`): its id
 * or its slug, as the CLI's `--site` takes; a 422 naming the parameter otherwise.
 */
export async function visibleSite(
  db: Db,
  scope: SiteScope,
  siteId: unknown,
  param: 'site' | 'site_id' = 'site_id',
): Promise<string> {
  const invalid = param === 'site' ? wifiErrors.siteInvalid : wifiErrors.siteIdInvalid;
  if (typeof siteId !== 'string') throw invalid();
  const site = (await findSite(db, siteId)) ?? (await findSiteBySlug(db, siteId.trim().toLowerCase()));
  if (!site || !inScope(scope, site.id)) throw invalid();
  return site.id;
}

/**
 * The site of a new router or plan: the one asked for, else the default site, or for staff
 * limited to one site that site (limited to several, they must say which).
 */
export async function siteForNew(db: Db, scope: SiteScope, siteId: unknown): Promise<string> {
  if (siteId !== undefined) return visibleSite(db, scope, siteId);
  if (scope === null) return DEFAULT_SITE_ID;
  const [only, ...more] = scope;
  if (only === undefined || more.length > 0) throw wifiErrors.siteIdRequired();
  return only;
}

/** The site a change moves a row to, or undefined when it keeps its site. */
export const siteForChange = (db: Db, scope: SiteScope, siteId: unknown): Promise<string | undefined> =>
  siteId === undefined ? Promise.resolve(undefined) : visibleSite(db, scope, siteId);

/** GET /api/v1/admin/sites, `hotspot-ctl sites list`: the sites the scope holds, default first. */
export function listSites(deps: Pick<WifiDeps, 'db'>, scope: SiteScope = null): Promise<SiteRow[]> {
  return selectSites(deps.db, scope);
}

/** Whether this box has more sites than the default one (the word "site" shows only then). */
export async function hasSeveralSites(deps: Pick<WifiDeps, 'db'>): Promise<boolean> {
  return (await countSites(deps.db)) > 1;
}

/** GET /api/v1/admin/sites/{id}: 404 for a site that does not exist or is outside the scope. */
export async function getSite(
  deps: Pick<WifiDeps, 'db'>,
  id: string,
  scope: SiteScope = null,
): Promise<SiteRow> {
  const site = await findSite(deps.db, id);
  if (!site || !inScope(scope, site.id)) throw wifiErrors.siteNotFound();
  return site;
}

/** The CLI's `--site`: a site's slug or id. */
export async function siteByRef(deps: Pick<WifiDeps, 'db'>, ref: string): Promise<SiteRow> {
  const site =
    (await findSiteBySlug(deps.db, ref.trim().toLowerCase())) ?? (await findSite(deps.db, ref.trim()));
  if (!site) throw wifiErrors.siteRefUnknown();
  return site;
}

/** Creates a site; only staff who cover every site may (a limited role is 403). */
export async function createSite(
  deps: Pick<WifiDeps, 'db' | 'clock' | 'log' | 'vault'>,
  request: SiteRequest,
  scope: SiteScope = null,
  actor?: WifiActor,
): Promise<SiteRow> {
  if (scope !== null) throw wifiErrors.forbidden();
  const values = parseSiteCreate(request);
  const now = deps.clock.now().toISOString();
  const id = uuid();
  const row = { id, ...toColumns(deps, id, values), created_at: now, updated_at: now } as SiteRow;
  await slugChecked(async () => {
    await deps.db.transaction().execute(async (tx) => {
      if (await findSiteBySlug(tx, values.slug)) throw wifiErrors.siteSlugTaken();
      await insertSite(tx, row);
      if (actor)
        await recordAudit(tx, deps.clock, {
          actor,
          action: 'site.create',
          target: { type: 'site', id: row.id },
          siteId: row.id,
          after: presentSite(row),
        });
    });
  });
  deps.log.info({ event: 'site.created', site_id: row.id, slug: row.slug }, 'site created');
  return row;
}

/** Changes the values the request supplies; 404 for a site outside the scope. */
export async function updateSite(
  deps: Pick<WifiDeps, 'db' | 'clock' | 'vault'>,
  id: string,
  request: SiteRequest,
  scope: SiteScope = null,
  actor?: WifiActor,
): Promise<SiteRow> {
  const values = parseSiteChanges(request);
  return slugChecked(() =>
    deps.db.transaction().execute(async (tx) => {
      const site = await findSite(tx, id);
      if (!site || !inScope(scope, site.id)) throw wifiErrors.siteNotFound();
      if (values.slug !== undefined && values.slug !== site.slug && (await findSiteBySlug(tx, values.slug)))
        throw wifiErrors.siteSlugTaken();
      await updateSiteRow(tx, id, {
        ...toColumns(deps, id, values),
        updated_at: deps.clock.now().toISOString(),
      });
      const updated = (await findSite(tx, id)) as SiteRow;
      if (actor)
        await recordAudit(tx, deps.clock, {
          actor,
          action: 'site.update',
          target: { type: 'site', id },
          siteId: id,
          before: presentSite(site),
          after: presentSite(updated),
        });
      return updated;
    }),
  );
}

/** Two writers racing for one slug: the unique index decides, and the loser hears why. */
async function slugChecked<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (isUniqueViolation(err)) throw wifiErrors.siteSlugTaken();
    throw err;
  }
}

function toColumns(
  deps: Pick<WifiDeps, 'vault'>,
  siteId: string,
  v: Partial<SiteValues>,
): Updateable<SitesTable> {
  const columns: Updateable<SitesTable> = accountColumns(deps.vault, siteId, v.paymentAccounts ?? {});
  if (v.slug !== undefined) columns.slug = v.slug;
  if (v.name !== undefined) columns.name = v.name;
  if (v.displayName !== undefined) columns.display_name = v.displayName;
  if (v.logo !== undefined) {
    columns.logo_data = v.logo?.data ?? null;
    columns.logo_type = v.logo?.type ?? null;
  }
  if (v.brandColor !== undefined) columns.brand_color = v.brandColor;
  if (v.backgroundColor !== undefined) columns.background_color = v.backgroundColor;
  if (v.timeZone !== undefined) columns.time_zone = v.timeZone;
  return columns;
}

/** The time zone of "today" for these sites: the one site's own, else VENUE_TIMEZONE. */
export async function timeZoneOf(deps: Pick<WifiDeps, 'db' | 'config'>, sites: SiteScope): Promise<string> {
  const [only, ...more] = sites ?? [];
  const site = only !== undefined && more.length === 0 ? await findSite(deps.db, only) : undefined;
  return site?.time_zone ?? deps.config.venueTimezone;
}
