import type { Kysely } from 'kysely';

/**
 * Per-site payment provider accounts (DESIGN.md §4.9, docs/decisions/0032): a site may take
 * payments into its own Selcom or AzamPay account. Each column holds that provider's credentials
 * of the site as one JSON object sealed with the vault (like devices.radius_secret_enc), bound to
 * the site and the provider; NULL means the site uses the box's settings (SELCOM_*, AZAMPAY_*).
 *
 * Plain added columns: the same statements on SQLite and PostgreSQL.
 */
const COLUMNS = ['selcom_account_enc', 'azampay_account_enc'] as const;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations are schema-agnostic by design
export async function up(db: Kysely<any>): Promise<void> {
  for (const column of COLUMNS) await db.schema.alterTable('sites').addColumn(column, 'text').execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see up()
export async function down(db: Kysely<any>): Promise<void> {
  for (const column of [...COLUMNS].reverse())
    await db.schema.alterTable('sites').dropColumn(column).execute();
}
