import type { Kysely } from 'kysely';

/**
 * When an account's password last changed (a reset). Staff admin sessions live in the Wi-Fi
 * feature's own table, which a reset cannot reach; admin authentication refuses a session
 * created before this moment instead, so a reset after a leak also ends an attacker's admin
 * session. Null until the first change.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations are schema-agnostic by design
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').addColumn('password_changed_at', 'text').execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('password_changed_at').execute();
}
