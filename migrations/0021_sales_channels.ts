import type { Kysely } from 'kysely';

/**
 * Selling without mobile money (DESIGN.md §4.8): every sale is still an invoice with a payment
 * and a grant, so revenue, receipts and the grant's terms keep one path; what differs is how it
 * was paid, and who sold it.
 *
 * - `invoices.channel`, `payments.channel`: `mobile_money` (the portal's push; every invoice and
 *   payment before this migration), `voucher` (a printed code, counted at redemption), `cash` (sold
 *   at the counter), `complimentary` (given away by staff; a payment of 0 TZS). Text, NOT NULL,
 *   DEFAULT 'mobile_money'.
 * - `invoices.sold_by`: the staff member (users.id) who sold or issued it at the counter, or the
 *   operator's CLI label; null for the portal's sales.
 * - `wifi_audit`: every staff action on Wi-Fi data (who, what, when, before and after as JSON),
 *   read by admins at GET /api/v1/admin/audit. `actor_id` is the staff member's users.id (null
 *   for the CLI, whose `actor` names the OS user), `actor` a label fit to show.
 *
 * Plain added columns and a new table: the same statements on SQLite and PostgreSQL. The new
 * table has no integer columns (text ids and ISO-8601 timestamps), so nothing needs widening.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations are schema-agnostic by design
export async function up(db: Kysely<any>): Promise<void> {
  for (const table of ['invoices', 'payments'])
    await db.schema
      .alterTable(table)
      .addColumn('channel', 'text', (c) => c.notNull().defaultTo('mobile_money'))
      .execute();
  await db.schema.alterTable('invoices').addColumn('sold_by', 'text').execute();
  await db.schema
    .createTable('wifi_audit')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'text')
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target_type', 'text', (c) => c.notNull())
    .addColumn('target_id', 'text', (c) => c.notNull())
    .addColumn('site_id', 'text')
    .addColumn('reason', 'text')
    .addColumn('before', 'text')
    .addColumn('after', 'text')
    .execute();
  await db.schema.createIndex('wifi_audit_created').on('wifi_audit').columns(['created_at', 'id']).execute();
  await db.schema
    .createIndex('wifi_audit_target')
    .on('wifi_audit')
    .columns(['target_type', 'target_id', 'created_at'])
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('wifi_audit').execute();
  await db.schema.alterTable('invoices').dropColumn('sold_by').execute();
  for (const table of ['payments', 'invoices'])
    await db.schema.alterTable(table).dropColumn('channel').execute();
}
