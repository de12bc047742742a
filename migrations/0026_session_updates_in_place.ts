import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * Accounting updates a session's row with every Interim-Update (octets, session time, when it
 * was heard). Indexes that name `updated_at` make each of those updates touch every index of
 * the table: on PostgreSQL an update that changes no indexed column can stay in its page (a
 * "heap-only tuple" update, no index entries), one that changes one cannot, so each interim wrote
 * six index entries and their WAL (docs/decisions/0026).
 *
 * - `radius_sessions_open` on (stopped_at, updated_at) becomes `radius_sessions_stopped` on
 *   (stopped_at): the open sessions are still found by index; the stale-session job filters them
 *   by `updated_at`, once a minute. The same statements on SQLite and PostgreSQL.
 * - PostgreSQL only: the table keeps a fifth of each page free (fillfactor 80), room for those
 *   in-page updates. A storage setting, not a change of meaning; SQLite has none to match.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations are schema-agnostic by design
type AnyDb = Kysely<any>;

const isPostgres = (db: AnyDb): boolean => db.getExecutor().adapter instanceof PostgresAdapter;

export async function up(db: AnyDb): Promise<void> {
  await db.schema.dropIndex('radius_sessions_open').execute();
  await db.schema.createIndex('radius_sessions_stopped').on('radius_sessions').column('stopped_at').execute();
  if (isPostgres(db)) await sql`alter table radius_sessions set (fillfactor = 80)`.execute(db);
}

export async function down(db: AnyDb): Promise<void> {
  if (isPostgres(db)) await sql`alter table radius_sessions reset (fillfactor)`.execute(db);
  await db.schema.dropIndex('radius_sessions_stopped').execute();
  await db.schema
    .createIndex('radius_sessions_open')
    .on('radius_sessions')
    .columns(['stopped_at', 'updated_at'])
    .execute();
}
