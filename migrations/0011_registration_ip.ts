import type { Kysely } from 'kysely';

/**
 * The address an account was created from. Registration signs the user in without a `login`
 * event, so without it the first sign-in after sign-up could never count as "from an address
 * the user never used" (identity-service.md §6 alert). Null for accounts created before this
 * migration or without a client address (`hotspot-ctl staff add`).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations are schema-agnostic by design
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').addColumn('registration_ip', 'text').execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('registration_ip').execute();
}
