import type { Kysely } from 'kysely';

/**
 * SMS delivery reports (docs/decisions/0047-sms-delivery.md): a gateway's report names the
 * message by the reference the gateway gave when it took it (`provider_reference`), so the SMS
 * log is looked up by provider and reference. A plain index: the same statement on SQLite and
 * PostgreSQL.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations are schema-agnostic by design
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('sms_messages_reference')
    .on('sms_messages')
    .columns(['provider', 'provider_reference'])
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('sms_messages_reference').execute();
}
