import type { Kysely } from 'kysely';

/**
 * Remote routers (DESIGN.md §4.9, docs/decisions/0025): a device may reach this box over
 * WireGuard (`tunnel_address`, its address inside the tunnel; `tunnel_public_key`, the public key
 * the router generated) or RadSec (`radsec_cert_sha256`, the fingerprint of the client certificate
 * `devices radsec-cert` issued to it last). All nullable: a router on the venue's LAN has none.
 *
 * Plain added columns: the same statements on SQLite and PostgreSQL.
 */
const COLUMNS = ['tunnel_address', 'tunnel_public_key', 'radsec_cert_sha256'] as const;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations are schema-agnostic by design
export async function up(db: Kysely<any>): Promise<void> {
  for (const column of COLUMNS) await db.schema.alterTable('devices').addColumn(column, 'text').execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see up()
export async function down(db: Kysely<any>): Promise<void> {
  for (const column of [...COLUMNS].reverse())
    await db.schema.alterTable('devices').dropColumn(column).execute();
}
