import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * Routers reuse Acct-Session-Id: MikroTik and others count them from a value that restarts with
 * the router, so after a reboot a new guest session can carry the id of an old, closed one. 0010
 * made (device_id, acct_session_id) unique over all time, so such a session was folded into the
 * closed row and never seen as live. Now only OPEN sessions are unique per device and id (a
 * partial unique index); closed ones may share it, found through a plain index.
 *
 * SQLite cannot drop a table constraint, so the table is rebuilt as 0015 rebuilt `devices`: in one
 * transaction create the new table, copy every row, drop the old one, rename, re-create its own
 * indexes, check the foreign keys. No table references radius_sessions, so nothing cascades and
 * foreign keys stay on.
 *
 * PostgreSQL drops (and, going down, adds back) the constraint in place, inside the transaction
 * its migrations run in: the same meaning, without a rebuild.
 */

/** The columns of `radius_sessions` as 0010 created them, in order. */
const COLUMNS = [
  'id',
  'device_id',
  'acct_session_id',
  'username',
  'grant_id',
  'framed_ip',
  'mac',
  'input_octets',
  'output_octets',
  'session_time',
  'started_at',
  'updated_at',
  'stopped_at',
  'terminate_cause',
] as const;

/** The indexes this migration adds (dropped again by down). */
const LOOKUP_INDEX = 'radius_sessions_device_acct_lookup';
const OPEN_UNIQUE_INDEX = 'radius_sessions_device_acct_open';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations are schema-agnostic by design
type AnyDb = Kysely<any>;

const isPostgres = (db: AnyDb): boolean => db.getExecutor().adapter instanceof PostgresAdapter;

export async function up(db: AnyDb): Promise<void> {
  if (isPostgres(db)) {
    await sql`alter table radius_sessions drop constraint radius_sessions_device_acct`.execute(db);
    await addIndexes(db);
    return;
  }
  await db.transaction().execute(async (tx) => {
    await rebuildSessions(tx, { uniqueForever: false });
    await addIndexes(tx);
  });
}

async function addIndexes(tx: AnyDb): Promise<void> {
  await tx.schema
    .createIndex(LOOKUP_INDEX)
    .on('radius_sessions')
    .columns(['device_id', 'acct_session_id', 'started_at'])
    .execute();
  await tx.schema
    .createIndex(OPEN_UNIQUE_INDEX)
    .on('radius_sessions')
    .columns(['device_id', 'acct_session_id'])
    .unique()
    .where(sql<boolean>`stopped_at is null`)
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  const { rows } = await sql<{ n: number }>`
    select count(*) as n from (
      select 1 from radius_sessions group by device_id, acct_session_id having count(*) > 1
    ) as reused`.execute(db);
  if ((rows[0]?.n ?? 0) > 0)
    throw new Error('cannot undo 0016: some routers reused an Acct-Session-Id; those sessions would collide');
  if (isPostgres(db)) {
    await db.schema.dropIndex(OPEN_UNIQUE_INDEX).execute();
    await db.schema.dropIndex(LOOKUP_INDEX).execute();
    await sql`alter table radius_sessions add constraint radius_sessions_device_acct unique (device_id, acct_session_id)`.execute(
      db,
    );
    return;
  }
  await db.transaction().execute(async (tx) => {
    await rebuildSessions(tx, { uniqueForever: true });
  });
}

async function rebuildSessions(tx: AnyDb, options: { uniqueForever: boolean }): Promise<void> {
  const { rows: columns } = await sql<{ name: string }>`
    select name from pragma_table_info('radius_sessions') order by cid`.execute(tx);
  const found = columns.map((c) => c.name).join(', ');
  // A column this migration does not know would be lost by the copy: refuse instead.
  if (found !== COLUMNS.join(', '))
    throw new Error(`radius_sessions has columns (${found}), expected (${COLUMNS.join(', ')})`);
  // Explicit indexes go with the old table; their SQL re-creates them (this migration's own
  // indexes only where up() wants them: it creates them itself).
  const { rows: extras } = await sql<{ sql: string }>`
    select sql from sqlite_master
    where tbl_name = 'radius_sessions' and type in ('index', 'trigger') and sql is not null
      and name not in (${LOOKUP_INDEX}, ${OPEN_UNIQUE_INDEX})
    order by type, name`.execute(tx);

  let table = tx.schema
    .createTable('radius_sessions_rebuilt')
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
    .addColumn('terminate_cause', 'text');
  if (options.uniqueForever)
    table = table.addUniqueConstraint('radius_sessions_device_acct', ['device_id', 'acct_session_id']);
  await table.execute();
  const list = sql.join(COLUMNS.map((c) => sql.ref(c)));
  await sql`insert into radius_sessions_rebuilt (${list}) select ${list} from radius_sessions`.execute(tx);
  await tx.schema.dropTable('radius_sessions').execute();
  await tx.schema.alterTable('radius_sessions_rebuilt').renameTo('radius_sessions').execute();
  for (const extra of extras) await sql.raw(extra.sql).execute(tx);

  const { rows: broken } = await sql`pragma foreign_key_check`.execute(tx);
  if (broken.length > 0) throw new Error(`foreign keys broken by the rebuild: ${JSON.stringify(broken)}`);
}
