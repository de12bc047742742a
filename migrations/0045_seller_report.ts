import type { Kysely } from 'kysely';

/**
 * Revenue by seller (issue 21, docs/decisions/0052-overview-sellers.md): the revenue report now
 * reads every payment's invoice's `sold_by` too, beside its site, plan and first router. The index
 * it reads the invoice by (`invoices_id_report`, 0039, made again by 0040) is made again carrying
 * the column, so that lookup stays an index-only read. Plain statements: the same on SQLite and
 * PostgreSQL.
 */

const BEFORE = ['id', 'site_id', 'plan_id', 'phone', 'first_device_id'];

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations are schema-agnostic by design
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('invoices_id_report').execute();
  await db.schema
    .createIndex('invoices_id_report')
    .on('invoices')
    .columns([...BEFORE, 'sold_by'])
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('invoices_id_report').execute();
  await db.schema.createIndex('invoices_id_report').on('invoices').columns(BEFORE).execute();
}
