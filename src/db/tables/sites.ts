/** Sites and the staff scope (migration 0019; DESIGN.md §4.9, docs/decisions/0024-sites.md). */

export interface SitesTable {
  /** `default` for the site every box starts with; a UUID for the others. */
  id: string;
  /** Unique: lower-case letters, digits and hyphens (the CLI's `--site`). */
  slug: string;
  /** What staff see. */
  name: string;
  /** What guests see in the portal's header; null: SERVICE_NAME. */
  display_name: string | null;
  /** The uploaded logo, base64, and its media type (image/png, …); both null: none. */
  logo_data: string | null;
  logo_type: string | null;
  /** `#rrggbb`, or null: the pages' own colours. */
  brand_color: string | null;
  background_color: string | null;
  /** IANA name; null: VENUE_TIMEZONE. */
  time_zone: string | null;
  /**
   * The site's own provider accounts (migration 0028): the credentials as sealed JSON
   * (`{"SELCOM_API_KEY": …}`), or null: the box's settings.
   */
  selcom_account_enc: string | null;
  azampay_account_enc: string | null;
  created_at: string;
  updated_at: string;
}

/** The sites a staff member's role is limited to; no row: every site. */
export interface StaffSitesTable {
  user_id: string;
  site_id: string;
  created_at: string;
}

export interface SiteTables {
  sites: SitesTable;
  staff_sites: StaffSitesTable;
}
