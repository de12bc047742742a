import type { ColumnDefinitionBuilder, Kysely } from 'kysely';

/** OAuth 2.0 / OIDC provider: signing keys, consents, codes, refresh families, access tokens. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations are schema-agnostic by design
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('signing_keys')
    .addColumn('kid', 'text', (c) => c.primaryKey())
    .addColumn('public_jwk', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('signs_from', 'text', (c) => c.notNull())
    .addColumn('retired_at', 'text')
    .addColumn('unpublish_at', 'text')
    .execute();

  const user = (c: ColumnDefinitionBuilder) => c.notNull().references('users.id').onDelete('cascade');
  const client = (c: ColumnDefinitionBuilder) =>
    c.notNull().references('oauth_clients.id').onDelete('cascade');

  await db.schema
    .createTable('oauth_consents')
    .addColumn('user_id', 'text', user)
    .addColumn('client_id', 'text', client)
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('granted_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('oauth_consents_pk', ['user_id', 'client_id'])
    .execute();
  await db.schema.createIndex('oauth_consents_client').on('oauth_consents').column('client_id').execute();

  await db.schema
    .createTable('oauth_refresh_families')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', client)
    .addColumn('user_id', 'text', user)
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('auth_time', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .addColumn('revoked_reason', 'text')
    .execute();
  await db.schema
    .createIndex('oauth_refresh_families_user_client')
    .on('oauth_refresh_families')
    .columns(['user_id', 'client_id'])
    .execute();
  await db.schema
    .createIndex('oauth_refresh_families_client')
    .on('oauth_refresh_families')
    .column('client_id')
    .execute();

  await db.schema
    .createTable('oauth_codes')
    .addColumn('code_hash', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', client)
    .addColumn('user_id', 'text', user)
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('code_challenge', 'text', (c) => c.notNull())
    .addColumn('nonce', 'text')
    .addColumn('auth_time', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .addColumn('family_id', 'text', (c) => c.references('oauth_refresh_families.id').onDelete('set null'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('oauth_refresh_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('family_id', 'text', (c) =>
      c.notNull().references('oauth_refresh_families.id').onDelete('cascade'),
    )
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('rotated_at', 'text')
    .execute();
  await db.schema
    .createIndex('oauth_refresh_tokens_family')
    .on('oauth_refresh_tokens')
    .column('family_id')
    .execute();

  await db.schema
    .createTable('oauth_access_tokens')
    .addColumn('jti', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', client)
    .addColumn('user_id', 'text', user)
    .addColumn('family_id', 'text', (c) => c.references('oauth_refresh_families.id').onDelete('cascade'))
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('oauth_access_tokens_user_client')
    .on('oauth_access_tokens')
    .columns(['user_id', 'client_id'])
    .execute();
  await db.schema
    .createIndex('oauth_access_tokens_client')
    .on('oauth_access_tokens')
    .column('client_id')
    .execute();
  await db.schema
    .createIndex('oauth_access_tokens_family')
    .on('oauth_access_tokens')
    .column('family_id')
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see up()
export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'oauth_access_tokens',
    'oauth_refresh_tokens',
    'oauth_codes',
    'oauth_refresh_families',
    'oauth_consents',
    'signing_keys',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
