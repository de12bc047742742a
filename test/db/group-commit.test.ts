import path from 'node:path';
import t from 'tap';
import { GroupCommit, migrateToLatest, openDatabase } from '../../src/db/index.js';

t.test('units that arrive together share one transaction; a failing unit rolls back alone', async (t) => {
  const { db } = openDatabase(path.join(t.testdir(), 'g.db'));
  t.teardown(() => db.destroy());
  await migrateToLatest(db);
  const group = new GroupCommit(db);
  const insert = (key: string) => (tx: typeof db) =>
    tx
      .insertInto('app_meta')
      .values({ key, value: 'v', updated_at: 'x' })
      .execute()
      .then(() => key);
  const results = await Promise.allSettled([
    group.run(insert('a')),
    group.run(async (tx) => {
      await insert('doomed')(tx);
      throw new Error('this unit fails');
    }),
    group.run(insert('b')),
    group.run(insert('a')), // primary key clash: fails alone
  ]);
  t.same(
    results.map((r) => r.status),
    ['fulfilled', 'rejected', 'fulfilled', 'rejected'],
  );
  t.same(
    (await db.selectFrom('app_meta').select('key').orderBy('key').execute()).map((r) => r.key),
    ['a', 'b'],
  );
  t.same(group.stats, { transactions: 1, units: 4 }, 'four units, one commit');
  t.equal(await group.run(insert('c')), 'c', 'later units get their own transaction');
  t.same(group.stats, { transactions: 2, units: 5 });
});

t.test('a unit resolves only after its transaction committed', async (t) => {
  const file = path.join(t.testdir(), 'durable.db');
  const { db } = openDatabase(file);
  t.teardown(() => db.destroy());
  await migrateToLatest(db);
  const group = new GroupCommit(db);
  await group.run((tx) =>
    tx.insertInto('app_meta').values({ key: 'k', value: 'v', updated_at: 'x' }).execute(),
  );
  const other = openDatabase(file);
  t.teardown(() => other.db.destroy());
  t.equal(
    (await other.db.selectFrom('app_meta').selectAll().execute()).length,
    1,
    'visible to another connection',
  );
});

/** Lets the event loop turn until `done()` holds (true) or 100 turns passed (false). */
async function turnsUntil(done: () => boolean): Promise<boolean> {
  for (let turn = 0; turn < 100 && !done(); turn++) await new Promise((resolve) => setImmediate(resolve));
  return done();
}

t.test(
  'the next group runs while the previous commit waits for the disk, and waits for its own sync',
  async (t) => {
    // A WAL sync that completes only when the test says so.
    const syncs: (() => void)[] = [];
    let hold = false;
    const wal = {
      sync: () => (hold ? new Promise<void>((resolve) => syncs.push(resolve)) : Promise.resolve()),
      close: () => Promise.resolve(),
    };
    const { db } = openDatabase(path.join(t.testdir(), 'p.db'), { wal });
    t.teardown(() => db.destroy());
    await migrateToLatest(db);
    hold = true;
    const group = new GroupCommit(db);
    const insert = (key: string) => (tx: typeof db) =>
      tx.insertInto('app_meta').values({ key, value: 'v', updated_at: 'x' }).execute();
    const settled: string[] = [];
    const first = group.run(insert('a')).then(() => settled.push('a'));
    t.ok(await turnsUntil(() => syncs.length === 1), 'the first group committed and waits for its sync');

    let ran = false;
    const second = group.run(async (tx) => {
      ran = true;
      await insert('b')(tx);
    });
    void second.then(() => settled.push('b'));
    t.ok(
      await turnsUntil(() => syncs.length === 2),
      'the second group committed before the first sync finished',
    );
    t.ok(ran);
    t.same(settled, [], 'neither is answered before a sync');

    syncs[0]!();
    await first;
    t.same(settled, ['a'], 'the first is answered after its sync; the second still waits for its own');
    syncs[1]!();
    await second;
    t.same(settled, ['a', 'b']);
    t.same(group.stats, { transactions: 2, units: 2 });
  },
);
