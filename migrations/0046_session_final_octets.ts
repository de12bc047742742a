import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * A session's octets as written when it closes, so that the usage report reads an index alone and
 * no Interim-Update changes an indexed column (docs/decisions/0054-session-final-octets.md).
 *
 * 0031 gave the usage report `radius_sessions_device_started` on (device_id, started_at,
 * input_octets, output_octets). Every Interim-Update changes the octets, so on PostgreSQL none
 * could stay in its page (a heap-only update): each wrote an entry into every index of the table.
 *
 * - `final_input_octets`, `final_output_octets`: the session's octets once it is closed, null
 *   while it is open. Every statement that closes, reopens or updates a closed session writes them
 *   (src/wifi/sessions.store.ts), so they are null exactly when `stopped_at` is; closed sessions
 *   take their octets now.
 * - `radius_sessions_device_started` carries those instead: (device_id, started_at,
 *   final_input_octets, final_output_octets). An Interim-Update of an open session leaves them
 *   null.
 * - `radius_sessions_open_started` on (device_id, started_at) where stopped_at is null: the few
 *   open sessions of a day, whose live octets the report reads from their rows.
 *
 * The same meaning on SQLite and PostgreSQL. The closed sessions are written once, with the old
 * index already dropped. SQLite then rewrites no index (it maintains only the indexes of the
 * columns an UPDATE sets). PostgreSQL adds an entry to every index for each row it cannot keep in
 * its page, so there the table's other indexes are dropped for the update and built again after
 * it, from their own definitions: 20 s instead of 42 s for a million sessions (the decision).
 * PostgreSQL's index-only reads then wait for a vacuum: migrate.ts runs one after the commit.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations are schema-agnostic by design
type AnyDb = Kysely<any>;

const FINAL = ['final_input_octets', 'final_output_octets'] as const;

const isPostgres = (db: AnyDb): boolean => db.getExecutor().adapter instanceof PostgresAdapter;

/** The table's indexes other than its primary key and constraints' own, with their definitions (PostgreSQL). */
async function plainIndexes(db: AnyDb): Promise<{ name: string; definition: string }[]> {
  const { rows } = await sql<{ name: string; definition: string }>`
    select c.relname as name, pg_get_indexdef(i.indexrelid) as definition
    from pg_index i join pg_class c on c.oid = i.indexrelid
    where i.indrelid = 'radius_sessions'::regclass and not i.indisprimary
      and not exists (select 1 from pg_constraint k where k.conindid = i.indexrelid)
    order by c.relname`.execute(db);
  return rows;
}

export async function up(db: AnyDb): Promise<void> {
  for (const column of FINAL)
    await db.schema.alterTable('radius_sessions').addColumn(column, 'bigint').execute();
  await db.schema.dropIndex('radius_sessions_device_started').execute();
  const rebuilt = isPostgres(db) ? await plainIndexes(db) : [];
  for (const { name } of rebuilt) await db.schema.dropIndex(name).execute();
  await db
    .updateTable('radius_sessions')
    .set({ final_input_octets: sql.ref('input_octets'), final_output_octets: sql.ref('output_octets') })
    .where('stopped_at', 'is not', null)
    .execute();
  for (const { definition } of rebuilt) await sql.raw(definition).execute(db);
  await db.schema
    .createIndex('radius_sessions_device_started')
    .on('radius_sessions')
    .columns(['device_id', 'started_at', ...FINAL])
    .execute();
  await db.schema
    .createIndex('radius_sessions_open_started')
    .on('radius_sessions')
    .columns(['device_id', 'started_at'])
    .where(sql<boolean>`stopped_at is null`)
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropIndex('radius_sessions_open_started').execute();
  await db.schema.dropIndex('radius_sessions_device_started').execute();
  await db.schema
    .createIndex('radius_sessions_device_started')
    .on('radius_sessions')
    .columns(['device_id', 'started_at', 'input_octets', 'output_octets'])
    .execute();
  for (const column of FINAL) await db.schema.alterTable('radius_sessions').dropColumn(column).execute();
}
