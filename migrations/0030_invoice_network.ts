import type { Kysely } from 'kysely';

/**
 * `invoices.network`: the mobile-money network the guest named on the portal (`vodacom`, `tigo`,
 * `airtel`, `halotel`, `azampesa`: wifi/networks.ts) for a number that moved between networks;
 * AzamPay's checkout and status query must name it. null: not named (the provider, or the
 * number's prefix, decides), and for every sale before this migration.
 *
 * A plain added column: the same statement on SQLite and PostgreSQL.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations are schema-agnostic by design
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('invoices').addColumn('network', 'text').execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('invoices').dropColumn('network').execute();
}
