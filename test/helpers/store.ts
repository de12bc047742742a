import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Kysely, PostgresAdapter, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { DB } from '../../src/db/schema.js';

/**
 * The store the tests run on. `HOTSPOT_TEST_STORE=postgres` with `HOTSPOT_TEST_PG_URL` (a
 * throwaway cluster, scripts/pg-test-cluster) runs them on PostgreSQL: each data directory gets
 * its own fresh schema, named in a file in the directory, so the daemon a test starts and the CLI
 * it runs on the same directory share a database, a directory tap empties starts afresh, and
 * test files running at once never meet.
 */
export const onPostgres = process.env.HOTSPOT_TEST_STORE === 'postgres';

/** DATABASE_URL for the store of `dataDir` (nothing on SQLite: the file in the data dir). */
export function storeEnv(dataDir: string): Record<string, string> {
  if (!onPostgres) return {};
  const base = process.env.HOTSPOT_TEST_PG_URL;
  if (!base) throw new Error('HOTSPOT_TEST_STORE=postgres needs HOTSPOT_TEST_PG_URL');
  const marker = path.join(dataDir, '.test-store');
  let schema = `t_${randomBytes(12).toString('hex')}`;
  if (existsSync(marker)) schema = readFileSync(marker, 'utf8').trim();
  else {
    try {
      mkdirSync(dataDir, { recursive: true, mode: 0o700 });
      writeFileSync(marker, `${schema}\n`);
    } catch {
      // Not a directory we can write (tests of a bad HOTSPOT_DATA_DIR): a schema of its own.
    }
  }
  const url = new URL(base);
  url.searchParams.set('schema', schema);
  return { DATABASE_URL: url.toString() };
}

/**
 * `HOTSPOT_TEST_RADIUS_WORKERS=2` runs every daemon a test starts (in-process or through the CLI)
 * with that many RADIUS worker processes (RADIUS_WORKERS, src/radius/workers.ts); a test that sets
 * RADIUS_WORKERS itself keeps its own. Workers run bin/hotspot-ctl: build first.
 */
export function workersEnv(): Record<string, string> {
  const workers = process.env.HOTSPOT_TEST_RADIUS_WORKERS;
  return workers ? { RADIUS_WORKERS: workers } : {};
}

/** A row as the store returns it. */
export type StoredRow = Record<string, unknown>;

/** kysely's own bookkeeping tables (in the store's schema on PostgreSQL, src/db/migrate.ts). */
export const MIGRATION_TABLES: readonly string[] = ['kysely_migration', 'kysely_migration_lock'];

const isPostgres = (db: Kysely<DB>): boolean => db.getExecutor().adapter instanceof PostgresAdapter;

/**
 * The tables of the app's store, by name: on SQLite those of sqlite_master (without SQLite's own
 * `sqlite_%` tables unless `sqliteInternal`), on PostgreSQL the base tables of the store's schema
 * (`current_schema()`, the test's own). kysely's migration tables are listed unless `migrations`
 * is false.
 */
export async function storeTables(
  db: Kysely<DB>,
  options: { migrations?: boolean; sqliteInternal?: boolean } = {},
): Promise<string[]> {
  const { migrations = true, sqliteInternal = false } = options;
  const { rows } = isPostgres(db)
    ? await sql<{ name: string }>`
        select table_name as name from information_schema.tables
        where table_schema = current_schema() and table_type = 'BASE TABLE'
        order by table_name`.execute(db)
    : await sql<{ name: string }>`
        select name from sqlite_master
        where type = 'table' ${sqliteInternal ? sql`` : sql`and name not like 'sqlite_%'`}
        order by name`.execute(db);
  return rows.map((r) => r.name).filter((name) => migrations || !MIGRATION_TABLES.includes(name));
}

/**
 * The tables each table's foreign keys point at (every table of `storeTables(db, options)`, with
 * an empty list when it has none): SQLite's pragma_foreign_key_list, or on PostgreSQL the foreign
 * key constraints of pg_catalog on the store's schema.
 */
export async function storeForeignKeys(
  db: Kysely<DB>,
  options: { migrations?: boolean } = {},
): Promise<Map<string, string[]>> {
  const tables = await storeTables(db, options);
  const { rows } = isPostgres(db)
    ? await sql<{ from: string; to: string }>`
        select c.relname as "from", p.relname as "to"
        from pg_catalog.pg_constraint k
        join pg_catalog.pg_class c on c.oid = k.conrelid
        join pg_catalog.pg_namespace n on n.oid = c.relnamespace
        join pg_catalog.pg_class p on p.oid = k.confrelid
        where k.contype = 'f' and n.nspname = current_schema()`.execute(db)
    : await sql<{ from: string; to: string }>`
        select m.name as "from", f."table" as "to"
        from sqlite_master m join pragma_foreign_key_list(m.name) f
        where m.type = 'table'`.execute(db);
  const parents = new Map(tables.map((table) => [table, [] as string[]]));
  for (const { from, to } of rows) parents.get(from)?.push(to);
  return parents;
}

/** Every row of `table` in the app's store, as stored. */
export async function storeRows(db: Kysely<DB>, table: string): Promise<StoredRow[]> {
  return (await sql<StoredRow>`select * from ${sql.table(table)}`.execute(db)).rows;
}

/**
 * Makes every insert into `table` whose `column` equals `value` fail with "injected failure" (as a
 * full disk or a broken constraint would), with a trigger in either dialect; resolves with the
 * undo. `table` and `column` are the test's own identifiers, `value` plain text.
 */
export function failInserts(
  db: Kysely<DB>,
  table: string,
  column: string,
  value: string,
): Promise<() => Promise<void>> {
  return failingTrigger(db, table, 'insert', { column, value }, 'injected failure');
}

/** Makes every insert into `table` fail with `message` (see failInserts); resolves with the undo. */
export function failEveryInsert(
  db: Kysely<DB>,
  table: string,
  message: string,
): Promise<() => Promise<void>> {
  return failingTrigger(db, table, 'insert', null, message);
}

/** Makes every update of `column` of `table` fail with `message`; resolves with the undo. */
export function failEveryUpdate(
  db: Kysely<DB>,
  table: string,
  column: string,
  message: string,
): Promise<() => Promise<void>> {
  return failingTrigger(db, table, `update of ${column}`, null, message);
}

async function failingTrigger(
  db: Kysely<DB>,
  table: string,
  event: string,
  when: { column: string; value: string } | null,
  message: string,
): Promise<() => Promise<void>> {
  const literal = (text: string): string => `'${text.replace(/'/g, "''")}'`;
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    const test = when ? `new.${when.column} = ${literal(when.value)}` : 'true';
    await sql
      .raw(
        `create function fail_one() returns trigger language plpgsql as $$
         begin
           if ${test} then raise exception ${literal(message)}; end if;
           return new;
         end $$`,
      )
      .execute(db);
    await sql
      .raw(`create trigger fail_one before ${event} on ${table} for each row execute function fail_one()`)
      .execute(db);
    return async () => {
      await sql.raw(`drop trigger fail_one on ${table}`).execute(db);
      await sql.raw('drop function fail_one()').execute(db);
    };
  }
  const condition = when ? ` when new.${when.column} = ${literal(when.value)}` : '';
  await sql
    .raw(
      `create trigger fail_one before ${event} on ${table}${condition} begin select raise(abort, ${literal(message)}); end`,
    )
    .execute(db);
  return async () => {
    await sql.raw('drop trigger fail_one').execute(db);
  };
}

/**
 * On PostgreSQL, a second handle on the test's database that no change feed watches (caches over
 * it fall back to their TTL, as on SQLite); null on SQLite. Closed with `destroy()`.
 */
export function unwatchedDb(dataDir: string): Kysely<DB> | null {
  const url = storeEnv(dataDir).DATABASE_URL;
  if (!url) return null;
  const target = new URL(url);
  const schema = target.searchParams.get('schema');
  target.searchParams.delete('schema');
  const pool = new pg.Pool({
    connectionString: target.toString(),
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  return new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
}
