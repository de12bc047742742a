import type { WifiDeps } from './deps.js';
import { findPortalRouter } from './devices.js';
import { isAppError } from '../lib/errors.js';
import { listActivePlans, type PlanRow } from './plans.js';
import { given, nasidOf, parseChilliRouter } from './router-params.js';
import { DEFAULT_SITE_ID } from './sites.js';
import { siteLogoPath } from './sites.present.js';
import { findSite } from './sites.store.js';
import { sha256Hex } from '../lib/crypto.js';

/**
 * The portal's side of sites (DESIGN.md §4.9): the plans and the branding of the site of the
 * router a guest came through, found as the hand-off finds it (nasid, else uamip; §4.7).
 */

/** What the portal's URL says about the router: CoovaChilli's `nasid`/`uamip`, MikroTik's `nasid`. */
export interface PortalQuery {
  nasid?: string | undefined;
  uamip?: string | undefined;
}

/** The router errors that mean "not a router this box can name", as opposed to a malformed value. */
const NOT_FOUND_CODES: ReadonlySet<string> = new Set([
  'routerUnknown',
  'uamipUnknown',
  'routerAmbiguous',
  'uamipOutsideRouter',
]);

/**
 * The site of the router a portal request names; the default site when it names none, or one this
 * box cannot tell (unknown, or ambiguous without nasid): refusing such a router is the router
 * check's job, and the portal sells nothing there. A malformed nasid or uamip is a 422.
 */
export async function portalSiteId(
  deps: Pick<WifiDeps, 'db' | 'vault'>,
  query: PortalQuery,
): Promise<string> {
  if (!given(query.nasid) && !given(query.uamip)) return DEFAULT_SITE_ID;
  const named = given(query.uamip)
    ? parseChilliRouter({ nasid: query.nasid, uamip: query.uamip })
    : { nasid: nasidOf(query.nasid, true), uamip: undefined };
  try {
    return (await findPortalRouter(deps, named)).device.site_id;
  } catch (err) {
    if (isAppError(err) && NOT_FOUND_CODES.has(err.code)) return DEFAULT_SITE_ID;
    throw err;
  }
}

/** GET /api/v1/public/plans[?nasid=…|uamip=…]: what guests of that router's site may buy. */
export async function listPortalPlans(
  deps: Pick<WifiDeps, 'db' | 'vault'>,
  query: PortalQuery,
): Promise<PlanRow[]> {
  return listActivePlans(deps, await portalSiteId(deps, query));
}

/** What the portal page shows of its site: the name in the header, the logo, the colours. */
export interface PortalBrand {
  siteId: string;
  /** The site's display name, else SERVICE_NAME. */
  name: string;
  /** Paths on this box (the page loads nothing from elsewhere), or null. */
  logoUrl: string | null;
  stylesheetUrl: string | null;
}

/**
 * The branding of the page at /portal. Unlike the plans, a router this box does not know gets the
 * default site's look: the page still has to say so (the router check does), in some colours.
 */
export async function portalBrand(
  deps: Pick<WifiDeps, 'db' | 'vault' | 'config'>,
  query: PortalQuery,
): Promise<PortalBrand> {
  const siteId = await portalSiteId(deps, query).catch((err: unknown) => {
    if (isAppError(err) && err.status === 422) return DEFAULT_SITE_ID;
    throw err;
  });
  const site = (await findSite(deps.db, siteId)) ?? (await findSite(deps.db, DEFAULT_SITE_ID));
  if (!site) return { siteId, name: deps.config.serviceName, logoUrl: null, stylesheetUrl: null };
  const css = brandCss(site);
  return {
    siteId: site.id,
    name: site.display_name ?? deps.config.serviceName,
    logoUrl: siteLogoPath(site),
    stylesheetUrl:
      css === null
        ? null
        : `/portal/sites/${encodeURIComponent(site.id)}/brand.css?v=${sha256Hex(css).slice(0, 12)}`,
  };
}

/** The site's colours as CSS custom properties over app.css's; null when it keeps the pages' own. */
function brandCss(site: { brand_color: string | null; background_color: string | null }): string | null {
  const rules = [
    ...(site.brand_color === null ? [] : [`--brand: ${site.brand_color};`]),
    ...(site.background_color === null ? [] : [`--bg: ${site.background_color};`]),
  ];
  return rules.length === 0 ? null : `:root {\n  ${rules.join('\n  ')}\n}\n`;
}

/** GET /portal/sites/{id}/brand.css: undefined for an unknown site or one without colours. */
export async function siteStylesheet(deps: Pick<WifiDeps, 'db'>, id: string): Promise<string | undefined> {
  const site = await findSite(deps.db, id);
  return (site && brandCss(site)) ?? undefined;
}

/** GET /portal/sites/{id}/logo: the uploaded image, or undefined. */
export async function siteLogo(
  deps: Pick<WifiDeps, 'db'>,
  id: string,
): Promise<{ type: string; bytes: Buffer } | undefined> {
  const site = await findSite(deps.db, id);
  if (!site?.logo_data || !site.logo_type) return undefined;
  return { type: site.logo_type, bytes: Buffer.from(site.logo_data, 'base64') };
}
