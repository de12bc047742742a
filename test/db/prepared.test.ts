import path from 'node:path';
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
