import { sha256Hex } from '../lib/crypto.js';
import { ownAccounts } from './sites-accounts.js';
import type { SiteRow } from './sites.store.js';

/** Where the portal serves a site's uploaded logo; `v` changes with the image (caches). */
export const siteLogoPath = (site: Pick<SiteRow, 'id' | 'logo_data'>): string | null =>
  site.logo_data === null
    ? null
    : `/portal/sites/${encodeURIComponent(site.id)}/logo?v=${sha256Hex(site.logo_data).slice(0, 12)}`;

/**
 * A site as staff and the CLI see it. The logo is a path on this box (never the image itself);
 * null values mean the box's own: SERVICE_NAME, the pages' colours, VENUE_TIMEZONE.
 * `payment_accounts` names the providers the site has its own account with (the others use the
 * box's settings); the credentials are never shown.
 */
export function presentSite(row: SiteRow): Record<string, unknown> {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    display_name: row.display_name,
    logo_url: siteLogoPath(row),
    brand_color: row.brand_color,
    background_color: row.background_color,
    time_zone: row.time_zone,
    payment_accounts: ownAccounts(row),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
