import path from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { MIGRATIONS, migrateToLatest, migrationState, openDatabase } from '../../src/db/index.js';

t.test('migrations apply in order to an empty database, then there is nothing left to do', async (t) => {
  const { db, sqlite } = openDatabase(path.join(t.testdir(), 'fresh.db'));
  t.teardown(() => db.destroy());
  t.same(await migrationState(db), { applied: [], pending: Object.keys(MIGRATIONS) });

  const results = await migrateToLatest(db);
  t.same(
    results.map((r) => [r.migrationName, r.status]),
    Object.keys(MIGRATIONS).map((name) => [name, 'Success']),
  );
  t.same(await migrationState(db), { applied: Object.keys(MIGRATIONS), pending: [] });
  t.same(await migrateToLatest(db), [], 'a second run applies nothing');

  const tables = sqlite
    .prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name")
    .pluck()
    .all();
  t.ok(tables.includes('app_meta'));
  t.ok(tables.includes('kysely_migration'));
  await db
    .insertInto('app_meta')
    .values({ key: 'k', value: 'v', updated_at: '2026-01-01T00:00:00.000Z' })
    .execute();
  t.same(await db.selectFrom('app_meta').selectAll().execute(), [
    { key: 'k', value: 'v', updated_at: '2026-01-01T00:00:00.000Z' },
  ]);
});

t.test(
  'the connection runs in WAL with foreign keys, a busy timeout and sync left to the driver',
  async (t) => {
    const { db, sqlite } = openDatabase(path.join(t.testdir(), 'pragmas.db'));
    t.teardown(() => db.destroy());
    t.equal(sqlite.pragma('journal_mode', { simple: true }), 'wal');
    t.equal(sqlite.pragma('foreign_keys', { simple: true }), 1);
    t.equal(sqlite.pragma('busy_timeout', { simple: true }), 5000);
    // NORMAL: SQLite does not fsync at commit; the driver syncs the WAL before acknowledging
    // (test/db/wal-sync.test.ts).
    t.equal(sqlite.pragma('synchronous', { simple: true }), 1, 'NORMAL');
  },
);

t.test('transactions take the write lock up front and roll back on error', async (t) => {
  const file = path.join(t.testdir(), 'tx.db');
  const { db } = openDatabase(file);
  t.teardown(() => db.destroy());
  await migrateToLatest(db);
  await t.rejects(
    db.transaction().execute(async (tx) => {
      await tx.insertInto('app_meta').values({ key: 'a', value: '1', updated_at: 'x' }).execute();
      throw new Error('abort');
    }),
  );
  t.same(await db.selectFrom('app_meta').selectAll().execute(), [], 'rolled back');
  // BEGIN IMMEDIATE: before the transaction has run a statement, another connection already
  // cannot write (with a deferred BEGIN it could, and the transaction would fail later instead).
  const other = new Database(file, { timeout: 0 });
  t.teardown(() => other.close());
  await db.transaction().execute(async () => {
    t.throws(() => other.prepare("insert into app_meta values ('c', '3', 'x')").run(), {
      code: 'SQLITE_BUSY',
    });
    await Promise.resolve();
  });
  other.prepare("insert into app_meta values ('c', '3', 'x')").run();
  t.equal((await db.selectFrom('app_meta').select('key').execute()).length, 1, 'writable again after commit');
});
