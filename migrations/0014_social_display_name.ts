import { sql, type Kysely } from 'kysely';

/**
 * Social login: the name the login page shows for a provider ("Sign in with <display_name>").
 * Providers that already exist are shown under their short name until the operator sets one.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations are schema-agnostic by design
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('social_providers')
    .addColumn('display_name', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await sql`update social_providers set display_name = name`.execute(db);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('social_providers').dropColumn('display_name').execute();
}
