import type { Kysely } from 'kysely';

/**
 * Vouchers and returning guests (DESIGN.md §4.8, docs/decisions/0027-vouchers.md).
 *
 * - `voucher_batches`: one `vouchers create` run: the plan it sells, how many codes, their prefix
 *   and length, the last day they may be redeemed (`valid_until`, ISO-8601 instant, null: no
 *   limit), who made it and when, and when the batch was revoked (null: not revoked).
 * - `vouchers`: one code. `code_hash` is the keyed digest (vault HMAC) of the normalised code,
 *   unique: the only way a typed code is found. `code_enc` is the code sealed with the vault, kept
 *   only while the code is unused so the batch can be printed later; it is cleared when the code is
 *   redeemed or revoked. `last3`: the code's last three characters, to tell codes apart in lists.
 *   `status`: `unused`, `redeemed` or `revoked` (`expired` is an unused code past `valid_until`,
 *   decided when read). A redemption fills `redeemed_at`, `invoice_id` and `grant_id`.
 * - `plans.remember_device`: 0/1 (default 0): the router may log a device back in by its MAC
 *   while the grant it logged in with lasts.
 * - `remembered_devices`: a MAC address (AA:BB:CC:DD:EE:FF) that logged in with a grant of such a
 *   plan; one row per grant and MAC.
 *
 * Numbers are `bigint` (PostgreSQL's `integer` is 32 bits; SQLite's INTEGER holds 64 either way).
 * The schema builder only: the same statements on SQLite and PostgreSQL.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations are schema-agnostic by design
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('voucher_batches')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('plan_id', 'text', (c) => c.notNull().references('plans.id'))
    .addColumn('site_id', 'text', (c) => c.notNull())
    .addColumn('count', 'bigint', (c) => c.notNull())
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('code_length', 'bigint', (c) => c.notNull())
    .addColumn('valid_until', 'text')
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema
    .createIndex('voucher_batches_created')
    .on('voucher_batches')
    .columns(['created_at'])
    .execute();
  await db.schema
    .createTable('vouchers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('batch_id', 'text', (c) => c.notNull().references('voucher_batches.id'))
    .addColumn('code_hash', 'text', (c) => c.notNull().unique())
    .addColumn('code_enc', 'text')
    .addColumn('last3', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('valid_until', 'text')
    .addColumn('redeemed_at', 'text')
    .addColumn('invoice_id', 'text')
    .addColumn('grant_id', 'text')
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('vouchers_batch').on('vouchers').columns(['batch_id', 'id']).execute();
  await db.schema
    .alterTable('plans')
    .addColumn('remember_device', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable('remembered_devices')
    .addColumn('grant_id', 'text', (c) => c.notNull().references('grants.id'))
    .addColumn('mac', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('remembered_devices_pk', ['grant_id', 'mac'])
    .execute();
  await db.schema.createIndex('remembered_devices_mac').on('remembered_devices').columns(['mac']).execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('remembered_devices').execute();
  await db.schema.alterTable('plans').dropColumn('remember_device').execute();
  await db.schema.dropTable('vouchers').execute();
  await db.schema.dropTable('voucher_batches').execute();
}
