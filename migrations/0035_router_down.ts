import type { Kysely } from 'kysely';

/**
 * The router-down warning (issue 21, docs/decisions/0038-router-down.md): `devices.down_since`,
 * the router's `last_seen_at` at the time the router-down job reported it silent with guests on
 * it (one warning log line and the owner's SMS per outage). Null: no outage reported. A later
 * packet moves `last_seen_at` past it, and the job sets it back to null (re-armed); the value
 * survives a daemon restart, so an outage is never reported twice.
 *
 * A plain added column (no index: devices are few): the same statement on SQLite and PostgreSQL.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations are schema-agnostic by design
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('devices').addColumn('down_since', 'text').execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('devices').dropColumn('down_since').execute();
}
