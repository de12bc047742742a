import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * A device may have no RADIUS secret of its own: `devices.radius_secret_enc` becomes nullable,
 * and NULL means the device uses RADIUS_SECRET (DESIGN.md §4.5, docs/decisions/0020).
 *
 * SQLite cannot drop a NOT NULL constraint, so the table is rebuilt the way
 * https://www.sqlite.org/lang_altertable.html#otheralter describes: foreign keys off (outside
 * any transaction; kysely's Migrator runs SQLite migrations without one), then in one
 * transaction create the new table, copy every row, drop the old one, rename, re-create the
 * table's own indexes and triggers, check the foreign keys; then foreign keys back as they were.
 * With foreign keys on, dropping `devices` would delete every radius_sessions row (ON DELETE
 * CASCADE). Every other column keeps its type, constraints and values.
 *
 * PostgreSQL drops and sets NOT NULL in place (ALTER COLUMN), inside the transaction its
 * migrations run in: the same meaning, without a rebuild.
 */

/** The columns of `devices` as 0003 created them, in order. */
const COLUMNS = [
  'id',
  'name',
  'model',
  'mac_address',
  'local_network',
  'uam_server',
  'radius_nas_id',
  'radius_client_ip',
  'coa_port',
  'radius_secret_enc',
  'uam_secret_enc',
  'uam_auth',
  'require_message_authenticator',
  'created_at',
  'updated_at',
] as const;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations are schema-agnostic by design
type AnyDb = Kysely<any>;

const isPostgres = (db: AnyDb): boolean => db.getExecutor().adapter instanceof PostgresAdapter;

export async function up(db: AnyDb): Promise<void> {
  if (isPostgres(db)) await sql`alter table devices alter column radius_secret_enc drop not null`.execute(db);
  else await rebuildDevices(db, { secretRequired: false });
}

export async function down(db: AnyDb): Promise<void> {
  const { rows } = await sql<{ n: number }>`
    select count(*) as n from devices where radius_secret_enc is null`.execute(db);
  if ((rows[0]?.n ?? 0) > 0)
    throw new Error(
      'cannot undo 0015: some devices use RADIUS_SECRET; rotate-secret gives them their own first',
    );
  if (isPostgres(db)) await sql`alter table devices alter column radius_secret_enc set not null`.execute(db);
  else await rebuildDevices(db, { secretRequired: true });
}

async function rebuildDevices(db: AnyDb, options: { secretRequired: boolean }): Promise<void> {
  const { rows: fk } = await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(db);
  const foreignKeysWereOn = fk[0]?.foreign_keys === 1;
  await sql`pragma foreign_keys = off`.execute(db);
  try {
    await db.transaction().execute(async (tx) => {
      const { rows: columns } = await sql<{ name: string }>`
        select name from pragma_table_info('devices') order by cid`.execute(tx);
      const found = columns.map((c) => c.name).join(', ');
      // A column this migration does not know would be lost by the copy: refuse instead.
      if (found !== COLUMNS.join(', '))
        throw new Error(`devices has columns (${found}), expected (${COLUMNS.join(', ')})`);
      // Explicit indexes and triggers go with the old table; their SQL re-creates them.
      const { rows: extras } = await sql<{ sql: string }>`
        select sql from sqlite_master
        where tbl_name = 'devices' and type in ('index', 'trigger') and sql is not null
        order by type, name`.execute(tx);

      await tx.schema
        .createTable('devices_rebuilt')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('model', 'text', (c) => c.notNull())
        .addColumn('mac_address', 'text', (c) => c.notNull().unique())
        .addColumn('local_network', 'text', (c) => c.notNull())
        .addColumn('uam_server', 'text', (c) => c.notNull())
        .addColumn('radius_nas_id', 'text', (c) => c.notNull().unique())
        .addColumn('radius_client_ip', 'text', (c) => c.notNull())
        .addColumn('coa_port', 'integer', (c) => c.notNull())
        .addColumn('radius_secret_enc', 'text', (c) => (options.secretRequired ? c.notNull() : c))
        .addColumn('uam_secret_enc', 'text')
        .addColumn('uam_auth', 'text', (c) => c.notNull())
        .addColumn('require_message_authenticator', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      const list = sql.join(COLUMNS.map((c) => sql.ref(c)));
      await sql`insert into devices_rebuilt (${list}) select ${list} from devices`.execute(tx);
      await tx.schema.dropTable('devices').execute();
      await tx.schema.alterTable('devices_rebuilt').renameTo('devices').execute();
      for (const extra of extras) await sql.raw(extra.sql).execute(tx);

      const { rows: broken } = await sql`pragma foreign_key_check`.execute(tx);
      if (broken.length > 0) throw new Error(`foreign keys broken by the rebuild: ${JSON.stringify(broken)}`);
    });
  } finally {
    if (foreignKeysWereOn) await sql`pragma foreign_keys = on`.execute(db);
  }
}
