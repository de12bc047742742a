import { sql, type Kysely } from 'kysely';

/**
 * Revenue by router under a second at full size (issue 21 part 5,
 * docs/decisions/0045-first-router.md): `invoices.first_device_id`, the router on which the
 * sale's guest first came online, i.e. the router of the first RADIUS session of the invoice's
 * grant; null while none (a sale whose guest never came online, a refund-only invoice, a voucher
 * or complimentary sale nobody used yet). The accounting path sets it when it records the grant's
 * first session (wifi/sessions.ts `openSession`), so the revenue report reads it with the invoice
 * instead of looking up the grant and its first session for every payment.
 *
 * The invoices index the report reads every payment's invoice by (0039's `invoices_id_report`)
 * is made again carrying the column, so that lookup stays an index-only read.
 *
 * Existing sales get the router of their grant's first session (by start, then id, as the report
 * chose it before). Plain statements: the same on SQLite and PostgreSQL.
 */

/**
 * Sets the first router of every invoice that has none yet and whose grant has a session. The
 * migration's backfill; also for rows written around the accounting path (the reports' test
 * data and the bench).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations are schema-agnostic by design
export async function backfillFirstRouters(db: Kysely<any>): Promise<void> {
  await sql`update invoices set first_device_id = (
      select s.device_id from grants g join radius_sessions s on s.grant_id = g.id
      where g.invoice_id = invoices.id
      order by s.started_at, s.id
      limit 1
    )
    where invoices.first_device_id is null and invoices.id in (
      select g.invoice_id from grants g
      where exists (select 1 from radius_sessions s where s.grant_id = g.id)
    )`.execute(db);
}

const REPORT_COLUMNS = ['id', 'site_id', 'plan_id', 'phone'];

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see backfillFirstRouters()
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('invoices').addColumn('first_device_id', 'text').execute();
  await backfillFirstRouters(db);
  await db.schema.dropIndex('invoices_id_report').execute();
  await db.schema
    .createIndex('invoices_id_report')
    .on('invoices')
    .columns([...REPORT_COLUMNS, 'first_device_id'])
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see backfillFirstRouters()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('invoices_id_report').execute();
  await db.schema.createIndex('invoices_id_report').on('invoices').columns(REPORT_COLUMNS).execute();
  await db.schema.alterTable('invoices').dropColumn('first_device_id').execute();
}
