import path from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { marker, migrateToLatest, openDatabase, prepared } from '../../src/db/index.js';

const metaValue = prepared(
  (db, key: string) => db.selectFrom('app_meta').select(['key', 'value']).where('key', '=', key),
  [marker('key')],
);
const metaInsert = prepared(
  (db, key: string, value: string) => db.insertInto('app_meta').values({ key, value, updated_at: 'x' }),
  [marker('key'), marker('value')],
);

t.test(
  'prepared reads keep their place behind queries already holding or waiting for the connection',
  { timeout: 10_000 },
  async (t) => {
    const { db } = openDatabase(path.join(t.testdir(), 'p.db'));
    t.teardown(() => db.destroy());
    await migrateToLatest(db);

    await metaInsert(db, 'committed', 'one');
    t.same(await metaValue(db, 'committed'), [{ key: 'committed', value: 'one' }], 'idle: read at once');

    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let insideSaw: unknown;
    const transaction = db.transaction().execute(async (tx) => {
      await metaInsert(tx, 'pending', 'two');
      insideSaw = await metaValue(tx, 'pending');
      await gate; // holds the connection, as a revocation waiting on its commit does
    });
    while (insideSaw === undefined) await new Promise((resolve) => setImmediate(resolve));
    t.same(insideSaw, [{ key: 'pending', value: 'two' }], 'inside a transaction a read sees its own write');

    // A login check arriving now must not answer from before the revocation being written.
    let answered = false;
    const read = metaValue(db, 'pending').then((rows) => {
      answered = true;
      return rows;
    });
    for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
    t.notOk(answered, 'the read waits for the transaction that came first');
    release();
    await transaction;
    t.same(await read, [{ key: 'pending', value: 'two' }], 'and then sees what it committed');
  },
);

t.test('a rolled-back write is never seen by prepared reads', async (t) => {
  const { db } = openDatabase(path.join(t.testdir(), 'r.db'));
  t.teardown(() => db.destroy());
  await migrateToLatest(db);
  await t.rejects(
    db.transaction().execute(async (tx) => {
      await metaInsert(tx, 'doomed', 'x');
      throw new Error('roll back');
    }),
  );
  t.same(await metaValue(db, 'doomed'), []);
  await t.rejects(
    metaInsert(db, 'doomed', 'x').then(() => metaInsert(db, 'doomed', 'y')),
    /UNIQUE/,
    'writes still go through the main connection and its constraints',
  );
  t.same(await metaValue(db, 'doomed'), [{ key: 'doomed', value: 'x' }]);
});

t.test('cached reads are kept until a write names their table or another connection commits', async (t) => {
  const file = path.join(t.testdir(), 'c.db');
  const { db, sqlite } = openDatabase(file);
  t.teardown(() => db.destroy());
  await migrateToLatest(db);
  const cachedValue = prepared(
    (db, key: string) => db.selectFrom('app_meta').select('value').where('key', '=', key),
    [marker('key')],
    { cacheUntilWritten: { tables: ['app_meta'], maxEntries: 2 } },
  );
  const value = async (key: string) => (await cachedValue(db, key))[0]?.value;

  await metaInsert(db, 'a', 'one');
  t.equal(await value('a'), 'one');
  // A write that goes around kysely on this same connection is the one change the cache cannot
  // see (domain code never does this); it shows the answer really comes from the cache.
  sqlite.prepare("update app_meta set value = 'unseen' where key = 'a'").run();
  t.equal(await value('a'), 'one', 'answered from the cache');
  t.same(await metaValue(db, 'a'), [{ key: 'a', value: 'unseen' }], 'an uncached read sees the row');

  await db.insertInto('radius_counters').values({ name: 'x', value: 1, updated_at: 'x' }).execute();
  t.equal(await value('a'), 'one', 'a write to another table keeps the cache');

  await metaInsert(db, 'b', 'two');
  t.equal(await value('a'), 'unseen', 'a write naming the table (another row) empties it');

  const other = new Database(file);
  t.teardown(() => other.close());
  other.prepare("update app_meta set value = 'from the CLI' where key = 'a'").run();
  // data_version is read once per turn of the event loop (connect.ts): a commit by another
  // connection is seen from the next turn.
  t.equal(await value('a'), 'unseen', 'in the turn of the commit the cache may still answer');
  await new Promise((resolve) => setImmediate(resolve));
  t.equal(await value('a'), 'from the CLI', 'from the next turn a commit by another connection empties it');

  t.equal(await value('b'), 'two');
  t.equal(await value('missing'), undefined);
  t.equal(await value('a'), 'from the CLI', 'past maxEntries the cache starts afresh, answers unchanged');

  // Inside a transaction, or while one holds the connection, nothing is cached or answered from it.
  await db.transaction().execute(async (tx) => {
    await tx.updateTable('app_meta').set({ value: 'inside' }).where('key', '=', 'a').execute();
    t.same(await cachedValue(tx, 'a'), [{ value: 'inside' }], 'a transaction reads its own write');
  });
  t.equal(await value('a'), 'inside');
  t.ok(Object.isFrozen(await cachedValue(db, 'a')), 'the shared rows cannot be changed by a caller');
});
