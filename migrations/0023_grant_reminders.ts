import type { Kysely } from 'kysely';

/**
 * Messages to guests (DESIGN.md §4.8): the SMS reminders a grant gets, 10 minutes before it ends
 * and at 80 % of its data allowance, each at most once.
 *
 * - `invoices.language`: the portal language the guest bought in (`en`, `sw`), so the reminders
 *   speak it; null for purchases made before this migration or not through the portal.
 * - `grants.end_reminder_at`, `grants.data_reminder_at`: when the reminder job claimed that
 *   reminder (a conditional UPDATE from null, so one daemon sends it, once); null: not yet.
 *
 * Plain added columns: the same statements on SQLite and PostgreSQL.
 */
const GRANT_COLUMNS = ['end_reminder_at', 'data_reminder_at'] as const;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations are schema-agnostic by design
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('invoices').addColumn('language', 'text').execute();
  for (const column of GRANT_COLUMNS)
    await db.schema.alterTable('grants').addColumn(column, 'text').execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see up()
export async function down(db: Kysely<any>): Promise<void> {
  for (const column of [...GRANT_COLUMNS].reverse())
    await db.schema.alterTable('grants').dropColumn(column).execute();
  await db.schema.alterTable('invoices').dropColumn('language').execute();
}
