import type { Kysely } from 'kysely';

/**
 * RADIUS: accounting sessions (one row per device + Acct-Session-Id), the daemon's RADIUS
 * counters, and the simultaneous-use limit of a plan, copied like the plan's other terms onto the
 * invoice and the grant. Octet totals are 64-bit (gigawords × 2^32 + octets) in bigint columns;
 * timestamps are ISO-8601 UTC text.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations are schema-agnostic by design
export async function up(db: Kysely<any>): Promise<void> {
  for (const table of ['plans', 'invoices', 'grants']) {
    await db.schema
      .alterTable(table)
      .addColumn('max_devices', 'integer', (c) => c.notNull().defaultTo(1))
      .execute();
  }

  await db.schema
    .createTable('radius_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('device_id', 'text', (c) => c.notNull().references('devices.id').onDelete('cascade'))
    .addColumn('acct_session_id', 'text', (c) => c.notNull())
    .addColumn('username', 'text', (c) => c.notNull())
    .addColumn('grant_id', 'text', (c) => c.references('grants.id'))
    .addColumn('framed_ip', 'text')
    .addColumn('mac', 'text')
    .addColumn('input_octets', 'bigint', (c) => c.notNull())
    .addColumn('output_octets', 'bigint', (c) => c.notNull())
    .addColumn('session_time', 'integer', (c) => c.notNull())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('stopped_at', 'text')
    .addColumn('terminate_cause', 'text')
    .addUniqueConstraint('radius_sessions_device_acct', ['device_id', 'acct_session_id'])
    .execute();
  await db.schema
    .createIndex('radius_sessions_grant')
    .on('radius_sessions')
    .columns(['grant_id', 'stopped_at'])
    .execute();
  await db.schema
    .createIndex('radius_sessions_open')
    .on('radius_sessions')
    .columns(['stopped_at', 'updated_at'])
    .execute();
  await db.schema.createIndex('radius_sessions_started').on('radius_sessions').column('started_at').execute();

  await db.schema
    .createTable('radius_counters')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('radius_counters').execute();
  await db.schema.dropTable('radius_sessions').execute();
  for (const table of ['grants', 'invoices', 'plans'])
    await db.schema.alterTable(table).dropColumn('max_devices').execute();
}
