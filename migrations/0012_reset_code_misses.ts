import { PostgresAdapter, type Kysely } from 'kysely';

/**
 * Wrong SMS password-reset codes by client address block (IPv4 address or IPv6 /64), kept for an
 * hour: the per-client guess budget of reset-password, which names no account and is not rate
 * limited (docs/decisions/0003-identity-accounts.md).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations are schema-agnostic by design
export async function up(db: Kysely<any>): Promise<void> {
  const isPg = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .createTable('reset_code_misses')
    .addColumn('id', 'integer', (c) =>
      isPg ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey().autoIncrement(),
    )
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('reset_code_misses_source')
    .on('reset_code_misses')
    .columns(['source', 'created_at'])
    .execute();
  await db.schema
    .createIndex('reset_code_misses_created')
    .on('reset_code_misses')
    .column('created_at')
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('reset_code_misses').execute();
}
