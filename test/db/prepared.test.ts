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
  'prepared reads see committed rows without waiting behind an open transaction',
  { timeout: 10_000 },
  async (t) => {
    const { db } = openDatabase(path.join(t.testdir(), 'p.db'));
    t.teardown(() => db.destroy());
    await migrateToLatest(db);

    await metaInsert(db, 'committed', 'one');
    t.same(
      await metaValue(db, 'committed'),
      [{ key: 'committed', value: 'one' }],
      'a write is readable once committed',
    );

    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let insideSaw: unknown;
    const transaction = db.transaction().execute(async (tx) => {
      await metaInsert(tx, 'pending', 'two');
      insideSaw = await metaValue(tx, 'pending');
      await gate; // holds the connection, as a grant waiting on its group commit does
    });
    // Let the transaction take the connection and write.
    while (insideSaw === undefined) await new Promise((resolve) => setImmediate(resolve));
    t.same(insideSaw, [{ key: 'pending', value: 'two' }], 'inside a transaction a read sees its own write');
    // On the main connection this read would queue until the transaction ends: it answers now.
    t.same(await metaValue(db, 'pending'), [], 'the uncommitted row is not seen outside');
    t.same(await metaValue(db, 'committed'), [{ key: 'committed', value: 'one' }]);
    release();
    await transaction;
    t.same(await metaValue(db, 'pending'), [{ key: 'pending', value: 'two' }], 'and is seen once committed');
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
