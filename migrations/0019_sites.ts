import type { Kysely } from 'kysely';
import { systemClock } from '../src/lib/clock.js';

/**
 * Sites (DESIGN.md §4.9, docs/decisions/0024-sites.md): a site groups routers, plans, branding,
 * a time zone and a staff scope. One site exists from the start, `default`, and every router,
 * plan and invoice there is belongs to it, so a single venue never has to know about sites.
 *
 * - `sites`: id (text; `default` for the first one, UUIDs for the others), a unique slug, the
 *   name staff see, the portal's branding (display name, an uploaded logo kept as base64 with its
 *   media type, two `#rrggbb` colours) and the time zone (null: VENUE_TIMEZONE applies).
 * - `devices.site_id`, `plans.site_id`, `invoices.site_id`: text, NOT NULL, DEFAULT 'default'.
 *   An invoice keeps the site of its plan as it was sold, as it keeps the plan's price and terms,
 *   so the records of a site do not change when a plan moves.
 * - `staff_sites`: the sites a staff role is limited to (no rows: every site).
 *
 * Why the new columns carry no REFERENCES clause: SQLite refuses ADD COLUMN with a REFERENCES
 * clause and a non-NULL default while foreign keys are on, and getting round that means a table
 * rebuild, which this migration must not do (it runs on PostgreSQL too). A nullable column
 * (null meaning the default site) would have worked on both, but would leave every query to say
 * `site_id = ? or site_id is null`. So the column is plain text with the default's id, and the
 * integrity is kept in code: a site_id is only ever written after wifi/sites.ts found the site,
 * and sites are never deleted. The new table `staff_sites` does have its foreign keys (CREATE
 * TABLE may declare them on both dialects).
 *
 * Portable: the schema builder only, text ids, ISO-8601 UTC text timestamps, no PRAGMAs, no
 * rebuilds; the same statements on SQLite and PostgreSQL.
 */
const SITE_TABLES = ['devices', 'plans', 'invoices'] as const;

const DEFAULT_SITE_ID = 'default';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations are schema-agnostic by design
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('sites')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('slug', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('display_name', 'text')
    .addColumn('logo_data', 'text')
    .addColumn('logo_type', 'text')
    .addColumn('brand_color', 'text')
    .addColumn('background_color', 'text')
    .addColumn('time_zone', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // A migration runs once, at the moment it runs: the wall clock is the honest creation time.
  const now = systemClock.now().toISOString();
  await db
    .insertInto('sites')
    .values({
      id: DEFAULT_SITE_ID,
      slug: DEFAULT_SITE_ID,
      name: 'Default',
      display_name: null,
      logo_data: null,
      logo_type: null,
      brand_color: null,
      background_color: null,
      time_zone: null,
      created_at: now,
      updated_at: now,
    })
    .execute();

  for (const table of SITE_TABLES) {
    await db.schema
      .alterTable(table)
      .addColumn('site_id', 'text', (c) => c.notNull().defaultTo(DEFAULT_SITE_ID))
      .execute();
    await db.schema.createIndex(`${table}_site`).on(table).column('site_id').execute();
  }

  await db.schema
    .createTable('staff_sites')
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('staff_sites_pk', ['user_id', 'site_id'])
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('staff_sites').execute();
  for (const table of SITE_TABLES) {
    await db.schema.dropIndex(`${table}_site`).execute();
    await db.schema.alterTable(table).dropColumn('site_id').execute();
  }
  await db.schema.dropTable('sites').execute();
}
