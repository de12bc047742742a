import type { Kysely } from 'kysely';

/**
 * Issue 21 part 5, every report over a year of a busy venue under a second
 * (docs/decisions/0043-report-speed.md). The reports read each local day (or hour) of a site as a
 * range of an index and aggregate it there; these indexes make those ranges, and the joins behind
 * them, read indexes alone:
 * - payments by `paid_at` carrying the invoice, channel and amount (revenue, top guests); it
 *   replaces 0031's `payments_paid_at`, whose lookups it serves as well;
 * - invoices by site, channel and `created_at` carrying the status (the payment funnel per day);
 * - invoices by id carrying site, plan and phone (every payment's invoice);
 * - RADIUS sessions by grant and start carrying the router (revenue by router: the first session
 *   of a sale's grant is the first entry of its grant). A session row is inserted once when it
 *   starts; interim updates change none of these columns, so the RADIUS hot path pays one more
 *   index entry per session, not per packet.
 *
 * Plain indexes: the same statements on SQLite and PostgreSQL.
 */
const INDEXES: readonly [name: string, table: string, columns: string[]][] = [
  ['payments_paid_cover', 'payments', ['paid_at', 'invoice_id', 'channel', 'amount_tzs']],
  ['invoices_site_channel_created', 'invoices', ['site_id', 'channel', 'created_at', 'status']],
  ['invoices_id_report', 'invoices', ['id', 'site_id', 'plan_id', 'phone']],
  ['radius_sessions_grant_started', 'radius_sessions', ['grant_id', 'started_at', 'id', 'device_id']],
];

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations are schema-agnostic by design
export async function up(db: Kysely<any>): Promise<void> {
  for (const [name, table, columns] of INDEXES)
    await db.schema.createIndex(name).on(table).columns(columns).execute();
  await db.schema.dropIndex('payments_paid_at').execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('payments_paid_at').on('payments').columns(['paid_at']).execute();
  for (const [name] of INDEXES) await db.schema.dropIndex(name).execute();
}
