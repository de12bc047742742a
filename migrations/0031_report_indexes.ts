import type { Kysely } from 'kysely';

/**
 * Indexes for the owner's reports (docs/decisions/0036-reports.md), so that a year of a busy venue
 * is read by range instead of by scanning whole tables:
 * - payments by `paid_at` (revenue, top guests);
 * - invoices by site and `created_at` (the payment funnel of one site);
 * - RADIUS sessions by router and `started_at`, carrying the octets, so usage and busy hours read
 *   the index alone on SQLite.
 *
 * Plain indexes: the same statements on SQLite and PostgreSQL.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations are schema-agnostic by design
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('payments_paid_at').on('payments').columns(['paid_at']).execute();
  await db.schema
    .createIndex('invoices_site_created')
    .on('invoices')
    .columns(['site_id', 'created_at'])
    .execute();
  await db.schema
    .createIndex('radius_sessions_device_started')
    .on('radius_sessions')
    .columns(['device_id', 'started_at', 'input_octets', 'output_octets'])
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('radius_sessions_device_started').execute();
  await db.schema.dropIndex('invoices_site_created').execute();
  await db.schema.dropIndex('payments_paid_at').execute();
}
