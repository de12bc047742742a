import { strictObject } from '../http/body.js';
import { defineRoute, type Route } from '../http/route.js';
import { staffActor } from './audit.js';
import type { WifiDeps } from './deps.js';
import { wifiErrors } from './errors.js';
import { createSite, getSite, listSites, updateSite } from './sites.js';
import { presentSite } from './sites.present.js';
import { SITE_FIELDS, type SiteRequest } from './sites.schema.js';
import { requireStaff } from './staff.http.js';

const siteBody = (raw: unknown): SiteRequest => strictObject(raw, SITE_FIELDS, wifiErrors.invalidBody);

/**
 * The admin API of sites (DESIGN.md §4.9, docs/decisions/0024-sites.md): every staff member reads
 * the sites their role covers; admins change theirs; only admins covering every site add one.
 */
export function adminSiteRoutes(deps: Pick<WifiDeps, 'db' | 'clock' | 'config' | 'log' | 'vault'>): Route[] {
  const viewer = requireStaff(deps, 'viewer');
  const admin = requireStaff(deps, 'admin');
  const id = (params: Readonly<Record<string, string>>) => params.id ?? '';
  return [
    defineRoute({
      method: 'GET',
      path: '/api/v1/admin/sites',
      api: 'wifi',
      auth: viewer,
      handler: async ({ principal }) => ({ data: (await listSites(deps, principal.sites)).map(presentSite) }),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/admin/sites',
      api: 'wifi',
      auth: admin,
      body: { kind: 'json', parse: siteBody },
      handler: async ({ principal, body }) => ({
        status: 201,
        data: presentSite(await createSite(deps, body, principal.sites, staffActor(principal))),
      }),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/admin/sites/:id',
      api: 'wifi',
      auth: viewer,
      handler: async ({ principal, params }) => ({
        data: presentSite(await getSite(deps, id(params), principal.sites)),
      }),
    }),
    defineRoute({
      method: 'PATCH',
      path: '/api/v1/admin/sites/:id',
      api: 'wifi',
      auth: admin,
      body: { kind: 'json', parse: siteBody },
      handler: async ({ principal, params, body }) => ({
        data: presentSite(await updateSite(deps, id(params), body, principal.sites, staffActor(principal))),
      }),
    }),
  ];
}
