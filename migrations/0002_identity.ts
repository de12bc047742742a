import { PostgresAdapter, type Kysely } from 'kysely';

/** Identity accounts: users, browser sessions, codes, resets, MFA and the security feed. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations are schema-agnostic by design
export async function up(db: Kysely<any>): Promise<void> {
  const isPg = db.getExecutor().adapter instanceof PostgresAdapter;
  const owned = (name: string) =>
    db.schema
      .createTable(name)
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'));

  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.unique())
    .addColumn('phone', 'text', (c) => c.unique())
    .addColumn('email_verified', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('phone_verified', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('display_name', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('avatar_url', 'text')
    .addColumn('staff_role', 'text')
    .addColumn('totp_secret', 'text')
    .addColumn('totp_enabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('totp_last_step', 'bigint')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await owned('sessions')
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('ip_address', 'text', (c) => c.notNull())
    .addColumn('device_label', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sessions_user').on('sessions').column('user_id').execute();

  await owned('verification_codes')
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('target', 'text', (c) => c.notNull())
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('consumed_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('verification_codes_user')
    .on('verification_codes')
    .columns(['user_id', 'channel', 'created_at'])
    .execute();

  await owned('password_resets')
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('password_resets_token').on('password_resets').column('token_hash').execute();
  await db.schema.createIndex('password_resets_user').on('password_resets').column('user_id').execute();

  await owned('mfa_challenges')
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('ip_address', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('mfa_challenges_user').on('mfa_challenges').column('user_id').execute();

  await owned('mfa_recovery_codes')
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('mfa_recovery_codes_user').on('mfa_recovery_codes').column('user_id').execute();

  await db.schema
    .createTable('security_events')
    .addColumn('id', 'integer', (c) =>
      isPg ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey().autoIncrement(),
    )
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('ip_address', 'text')
    .addColumn('detail', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('security_events_user')
    .on('security_events')
    .columns(['user_id', 'id'])
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see up()
export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'security_events',
    'mfa_recovery_codes',
    'mfa_challenges',
    'password_resets',
    'verification_codes',
    'sessions',
    'users',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
