import type { Kysely } from 'kysely';

/**
 * Wi-Fi access: plans, routers (devices), invoices with their purchase keys, access grants,
 * payments and the de-duplication table of payment events. Portable SQL only: text ids and
 * ISO-8601 UTC timestamps, integer 0/1 booleans, plain and unique indexes.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations are schema-agnostic by design
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('plans')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('price_tzs', 'integer', (c) => c.notNull())
    .addColumn('duration_seconds', 'integer', (c) => c.notNull())
    .addColumn('data_limit_bytes', 'bigint')
    .addColumn('active', 'integer', (c) => c.notNull())
    .addColumn('sort_order', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('devices')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('mac_address', 'text', (c) => c.notNull().unique())
    .addColumn('local_network', 'text', (c) => c.notNull())
    .addColumn('uam_server', 'text', (c) => c.notNull())
    .addColumn('radius_nas_id', 'text', (c) => c.notNull().unique())
    .addColumn('radius_client_ip', 'text', (c) => c.notNull())
    .addColumn('coa_port', 'integer', (c) => c.notNull())
    .addColumn('radius_secret_enc', 'text', (c) => c.notNull())
    .addColumn('uam_secret_enc', 'text')
    .addColumn('uam_auth', 'text', (c) => c.notNull())
    .addColumn('require_message_authenticator', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('invoices')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('number', 'text', (c) => c.notNull().unique())
    .addColumn('sequence', 'integer', (c) => c.notNull().unique())
    .addColumn('plan_id', 'text', (c) => c.notNull().references('plans.id'))
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('amount_tzs', 'integer', (c) => c.notNull())
    .addColumn('duration_seconds', 'integer', (c) => c.notNull())
    .addColumn('data_limit_bytes', 'bigint')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('purchase_key_hash', 'text', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('provider_reference', 'text')
    .addColumn('failure_reason', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('paid_at', 'text')
    .execute();
  await db.schema
    .createIndex('invoices_status_created')
    .on('invoices')
    .columns(['status', 'created_at'])
    .execute();

  await db.schema
    .createTable('purchase_keys')
    .addColumn('key_hash', 'text', (c) => c.primaryKey())
    .addColumn('invoice_id', 'text', (c) => c.notNull().references('invoices.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('grants')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('invoice_id', 'text', (c) => c.notNull().unique().references('invoices.id'))
    .addColumn('username', 'text', (c) => c.notNull().unique())
    .addColumn('password_enc', 'text', (c) => c.notNull())
    .addColumn('data_limit_bytes', 'bigint')
    .addColumn('issued_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .addColumn('revoke_reason', 'text')
    .addColumn('ended_at', 'text')
    .execute();
  await db.schema.createIndex('grants_expires_at').on('grants').column('expires_at').execute();

  await db.schema
    .createTable('payments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('invoice_id', 'text', (c) => c.notNull().unique().references('invoices.id'))
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('provider_reference', 'text')
    .addColumn('amount_tzs', 'integer', (c) => c.notNull())
    .addColumn('phone', 'text')
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('paid_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('payment_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('invoice_number', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('received_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('payment_events_provider_event', ['provider', 'event_id'])
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see up()
export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'payment_events',
    'payments',
    'grants',
    'purchase_keys',
    'invoices',
    'devices',
    'plans',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
