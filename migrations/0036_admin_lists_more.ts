import type { Kysely } from 'kysely';

/**
 * Issue 21, the rest of the admin lists (docs/decisions/0039-sms-log.md): the SMS list shows every
 * SMS the box sends, not only staff messages.
 *
 * - `sms_messages.kind`: `staff` (every row before this migration), `credentials`,
 *   `reminder_ends`, `reminder_data`, `code`, `reset` or `other`. Text, NOT NULL, DEFAULT 'staff'.
 * - `sms_messages.attempts`: how many times the gateway was asked (a reminder it refused is asked
 *   again by a later run). Integer, NOT NULL, DEFAULT 1.
 * - `sms_messages.site_id`: the site of the guest's purchase (credentials, reminders); null for
 *   staff and account messages.
 * - `sms_messages.log_key`: names the message a retry belongs to (`reminder_ends:<grant id>`),
 *   so the retry counts on its row instead of making another; null for one-off messages.
 * - `sms_messages.updated_at`: when the gateway last answered; null while queued.
 * - indexes: the SMS list by kind (with its newest-first time) and by a retry's key. The audit
 *   list's new filters are searches (contains, prefix) no index serves; wifi_audit_created keeps
 *   its pages in order.
 *
 * Plain added columns and indexes: the same statements on SQLite and PostgreSQL.
 */
const INDEXES: readonly [name: string, table: string, columns: string[]][] = [
  ['sms_messages_kind_created', 'sms_messages', ['kind', 'created_at']],
  ['sms_messages_log_key', 'sms_messages', ['log_key']],
];
const TEXT_COLUMNS = ['site_id', 'log_key', 'updated_at'] as const;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations are schema-agnostic by design
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('sms_messages')
    .addColumn('kind', 'text', (c) => c.notNull().defaultTo('staff'))
    .execute();
  await db.schema
    .alterTable('sms_messages')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  for (const column of TEXT_COLUMNS)
    await db.schema.alterTable('sms_messages').addColumn(column, 'text').execute();
  for (const [name, table, columns] of INDEXES)
    await db.schema.createIndex(name).on(table).columns(columns).execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see up()
export async function down(db: Kysely<any>): Promise<void> {
  for (const [name] of INDEXES) await db.schema.dropIndex(name).execute();
  for (const column of [...TEXT_COLUMNS, 'attempts', 'kind'].reverse())
    await db.schema.alterTable('sms_messages').dropColumn(column).execute();
}
