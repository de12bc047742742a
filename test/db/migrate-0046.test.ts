import { Migrator, PostgresAdapter, sql } from 'kysely';
import t from 'tap';
import { MIGRATIONS, migrateToLatest, openStore, type Db } from '../../src/db/index.js';
import { routerRow } from '../helpers/report-data.js';
import { onPostgres, storeEnv } from '../helpers/store.js';

/**
 * Migration 0046 (docs/decisions/0054-session-final-octets.md) on the store the suite runs on:
 * closed sessions take their octets as final octets, open ones none; the reports' index carries
 * the final octets; every other index of the table is as it was (on PostgreSQL they are dropped
 * for the update and made again from their own definitions); PostgreSQL vacuums the table after
 * the commit; and the migration undoes cleanly.
 */

const isPostgres = (db: Db): boolean => db.getExecutor().adapter instanceof PostgresAdapter;

/** A migrator over the migrations before `first` (the database as an older release left it), or all. */
async function migrator(db: Db, first = '9999'): Promise<Migrator> {
  const schema = isPostgres(db)
    ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema
    : undefined;
  return new Migrator({
    db,
    provider: {
      getMigrations: () =>
        Promise.resolve(Object.fromEntries(Object.entries(MIGRATIONS).filter(([name]) => name < first))),
    },
    ...(schema !== undefined && { migrationTableSchema: schema }),
  });
}

/** The indexes of radius_sessions, by name, with their definitions (unquoted). */
async function indexes(db: Db): Promise<Record<string, string>> {
  const { rows } = isPostgres(db)
    ? await sql<{ name: string; definition: string }>`
        select indexname as name, indexdef as definition from pg_indexes
        where schemaname = current_schema() and tablename = 'radius_sessions'`.execute(db)
    : await sql<{ name: string; definition: string }>`
        select name, coalesce(sql, '') as definition from sqlite_master
        where type = 'index' and tbl_name = 'radius_sessions'`.execute(db);
  return Object.fromEntries(rows.map((r) => [r.name, r.definition.replaceAll('"', '')]));
}

const AT = '2026-01-15T09:00:00.000Z';

t.test('0046 gives closed sessions their final octets and keeps every other index', async (t) => {
  const dir = t.testdir();
  const store = await openStore(
    { dataDir: dir, databaseUrl: storeEnv(dir).DATABASE_URL ?? null },
    { now: () => new Date(AT) },
  );
  t.teardown(() => store.close());
  const db = store.db;
  t.error((await (await migrator(db, '0046')).migrateToLatest()).error);

  await db
    .insertInto('devices')
    .values(routerRow(1, 'default', AT))
    .execute();
  const session = (id: string, input: number, output: number, stoppedAt: string | null) => ({
    id,
    device_id: 'dev-1',
    acct_session_id: `acct-${id}`,
    username: 'guest',
    grant_id: null,
    framed_ip: '10.1.0.5',
    mac: '11:22:33:44:55:66',
    input_octets: input,
    output_octets: output,
    session_time: 60,
    started_at: AT,
    updated_at: AT,
    stopped_at: stoppedAt,
    terminate_cause: stoppedAt === null ? null : 'User-Request',
  });
  // Written as the previous release wrote them: no final octets (its table has no such columns).
  await db
    .insertInto('radius_sessions')
    .values([
      session('closed', 4_294_967_301, 7, '2026-01-15T09:01:00.000Z'),
      session('stale', 10, 20, '2026-01-15T09:13:00.000Z'),
      session('open', 30, 40, null),
    ])
    .execute();
  const others = await indexes(db);
  delete others.radius_sessions_device_started;

  const applied = await migrateToLatest(db);
  // Later migrations run too: this one first.
  t.same(applied.map((r) => [r.migrationName, r.status])[0], ['0046_session_final_octets', 'Success']);
  t.same(
    await db
      .selectFrom('radius_sessions')
      .select(['id', 'input_octets', 'final_input_octets', 'final_output_octets'])
      .orderBy('id')
      .execute(),
    [
      {
        id: 'closed',
        input_octets: 4_294_967_301,
        final_input_octets: 4_294_967_301,
        final_output_octets: 7,
      },
      { id: 'open', input_octets: 30, final_input_octets: null, final_output_octets: null },
      { id: 'stale', input_octets: 10, final_input_octets: 10, final_output_octets: 20 },
    ],
    'closed sessions: their octets; the open one: none',
  );
  const after = await indexes(db);
  const { radius_sessions_device_started: reports, radius_sessions_open_started: open, ...rest } = after;
  t.same(rest, others, 'every other index, as it was defined');
  t.match(reports, /\(device_id, started_at, final_input_octets, final_output_octets\)/);
  t.match(open, /\(device_id, started_at\) WHERE \(?stopped_at IS NULL\)?/i);
  if (onPostgres) {
    const { rows } = await sql<{ vacuumed: Date | null }>`
      select pg_stat_get_last_vacuum_time('radius_sessions'::regclass) as vacuumed`.execute(db);
    t.not(rows[0]?.vacuumed ?? null, null, 'vacuumed after the commit (index-only reads need it)');
  }

  t.error((await (await migrator(db)).migrateTo('0045_seller_report')).error, 'undone');
  t.same(
    { ...(await indexes(db)), radius_sessions_device_started: undefined },
    { ...others, radius_sessions_device_started: undefined },
  );
  t.match(
    (await indexes(db)).radius_sessions_device_started,
    /\(device_id, started_at, input_octets, output_octets\)/,
  );
  t.same(
    await db.selectFrom('radius_sessions').select(['id', 'output_octets']).orderBy('id').execute(),
    [
      { id: 'closed', output_octets: 7 },
      { id: 'open', output_octets: 40 },
      { id: 'stale', output_octets: 20 },
    ],
    'the sessions, as they were',
  );
});
