import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * State several daemons on one database share (DESIGN.md §4.9):
 * - `rate_limits`: the limiters' windows, counted in the database when daemons share it;
 * - `job_runs`: the last schedule tick each job ran for, claimed by one daemon only;
 * - `signing_keys.private_key_enc`: the OAuth signing key sealed with the vault key, so every
 *   daemon that shares the vault key can sign with it (before this, only the PEM file of the
 *   daemon that rotated held it);
 * - on PostgreSQL only, statement triggers that NOTIFY `hotspot_changes` with `<schema>.<table>`
 *   after a write to a table whose reads daemons keep in memory (postgres.ts ChangeFeed). SQLite
 *   needs none: one daemon per file, and `PRAGMA data_version` reports the CLI's commits;
 * - on PostgreSQL only, every `integer` column becomes `bigint`: SQLite's INTEGER holds 64 bits,
 *   PostgreSQL's 32, and a number the API accepts (a plan of 2^33 seconds) must fit in both.
 *   Later migrations write `bigint` for numbers. Going down keeps the wider type (it loses nothing).
 */

/** Tables whose changes daemons must hear of: their reads are cached in memory. */
export const NOTIFIED_TABLES = ['grants', 'devices', 'radius_sessions', 'signing_keys', 'plans'] as const;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations are schema-agnostic by design
type AnyDb = Kysely<any>;

const isPostgres = (db: AnyDb): boolean => db.getExecutor().adapter instanceof PostgresAdapter;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('rate_limits')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addColumn('expires_at_ms', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('rate_limits_expires').on('rate_limits').column('expires_at_ms').execute();
  await db.schema
    .createTable('job_runs')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('tick', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.alterTable('signing_keys').addColumn('private_key_enc', 'text').execute();

  if (!isPostgres(db)) return;
  const { rows: narrow } = await sql<{ table_name: string; column_name: string }>`
    select table_name, column_name from information_schema.columns
    where table_schema = current_schema() and data_type = 'integer' and table_name not like 'kysely_%'
    order by table_name, ordinal_position`.execute(db);
  const byTable = new Map<string, string[]>();
  for (const { table_name, column_name } of narrow)
    byTable.set(table_name, [...(byTable.get(table_name) ?? []), column_name]);
  // One ALTER per table: the table is rewritten once, not once per column.
  for (const [table, columns] of byTable) {
    const changes = columns.map((c) => sql`alter column ${sql.ref(c)} type bigint`);
    await sql`alter table ${sql.table(table)} ${sql.join(changes)}`.execute(db);
  }

  await sql`
    create or replace function hotspot_notify_change() returns trigger language plpgsql as $$
    begin
      perform pg_notify('hotspot_changes', tg_table_schema || '.' || tg_table_name);
      return null;
    end $$`.execute(db);
  for (const table of NOTIFIED_TABLES) {
    await sql`
      create trigger ${sql.id(`${table}_notify_change`)}
      after insert or update or delete or truncate on ${sql.table(table)}
      for each statement execute function hotspot_notify_change()`.execute(db);
  }
}

export async function down(db: AnyDb): Promise<void> {
  if (isPostgres(db)) {
    for (const table of NOTIFIED_TABLES)
      await sql`drop trigger if exists ${sql.id(`${table}_notify_change`)} on ${sql.table(table)}`.execute(
        db,
      );
    await sql`drop function if exists hotspot_notify_change()`.execute(db);
  }
  await db.schema.alterTable('signing_keys').dropColumn('private_key_enc').execute();
  await db.schema.dropTable('job_runs').execute();
  await db.schema.dropTable('rate_limits').execute();
}
