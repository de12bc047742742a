import type { Kysely } from 'kysely';

/**
 * Issue 21, the admin UI as a tool: indexes for the admin lists' filters and pages
 * (src/wifi/list-query.ts): invoices by phone (guests, search) and by plan, SMS by status, each
 * with the list's newest-first time so a filtered page is read in order. Payments by time and
 * sessions by router use 0031's `payments_paid_at` and `radius_sessions_device_started`.
 *
 * Plain indexes: the same statements on SQLite and PostgreSQL.
 */
const INDEXES: readonly [name: string, table: string, columns: string[]][] = [
  ['invoices_phone_created', 'invoices', ['phone', 'created_at']],
  ['invoices_plan_created', 'invoices', ['plan_id', 'created_at']],
  ['sms_messages_status_created', 'sms_messages', ['status', 'created_at']],
];

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations are schema-agnostic by design
export async function up(db: Kysely<any>): Promise<void> {
  for (const [name, table, columns] of INDEXES)
    await db.schema.createIndex(name).on(table).columns(columns).execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see up()
export async function down(db: Kysely<any>): Promise<void> {
  for (const [name] of INDEXES) await db.schema.dropIndex(name).execute();
}
