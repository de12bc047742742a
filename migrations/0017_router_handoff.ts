import type { Kysely } from 'kysely';

/**
 * Speed limits and router health (DESIGN.md §4.7):
 * - plans get an optional download and upload speed in kbit/s (null: none); invoices and grants
 *   keep the speed of the plan as it was sold, as they keep its data limit, so changing a plan
 *   does not change access already sold (unless the operator applies it to live sessions);
 * - devices get `last_seen_at`, when the router's last valid RADIUS packet arrived (null: never),
 *   and `gateway_ip`, the router's own address on the guest network, where the portal may send a
 *   guest's login (null: the network's first address; docs/decisions/0023).
 *
 * Plain added columns: the same statements on SQLite and PostgreSQL.
 */
const SPEED_TABLES = ['plans', 'invoices', 'grants'] as const;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations are schema-agnostic by design
export async function up(db: Kysely<any>): Promise<void> {
  for (const table of SPEED_TABLES) {
    await db.schema.alterTable(table).addColumn('download_kbps', 'integer').execute();
    await db.schema.alterTable(table).addColumn('upload_kbps', 'integer').execute();
  }
  await db.schema.alterTable('devices').addColumn('last_seen_at', 'text').execute();
  await db.schema.alterTable('devices').addColumn('gateway_ip', 'text').execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('devices').dropColumn('gateway_ip').execute();
  await db.schema.alterTable('devices').dropColumn('last_seen_at').execute();
  for (const table of SPEED_TABLES) {
    await db.schema.alterTable(table).dropColumn('upload_kbps').execute();
    await db.schema.alterTable(table).dropColumn('download_kbps').execute();
  }
}
