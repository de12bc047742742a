import path from 'node:path';
import Database from 'better-sqlite3';
import { sql } from 'kysely';
import t, { type Test } from 'tap';
import { idleWriteTransaction, openDatabase } from '../../src/db/index.js';
import type { WalSync } from '../../src/db/wal-sync.js';

/**
 * connect.ts `idleWriteTransaction`: the accounting path's synchronous write. It runs only where a
 * queued transaction would run (the connection idle, the write lock free), commits before it
 * returns, and its `durable` waits for the WAL sync, so nothing it wrote is acknowledged early.
 */

/** A WAL sync that, once `hold` is set, finishes only when the test releases it; it counts its calls. */
function heldWalSync() {
  let release: () => void = () => undefined;
  const wal: WalSync & { calls: number; hold: boolean; release: () => void } = {
    calls: 0,
    hold: false,
    sync() {
      wal.calls++;
      if (!wal.hold) return Promise.resolve();
      return new Promise<void>((resolve) => (release = resolve));
    },
    close: () => Promise.resolve(),
    release: () => release(),
  };
  return wal;
}

async function fixture(t: Test) {
  const file = path.join(t.testdir(), 'idle.db');
  const wal = heldWalSync();
  const { db } = openDatabase(file, { wal });
  // Another process's connection (the CLI, a RADIUS worker): it sees only what is committed.
  const other = new Database(file);
  t.teardown(async () => {
    other.close();
    await db.destroy();
  });
  await sql`create table n (v integer)`.execute(db);
  wal.calls = 0;
  wal.hold = true;
  const count = () => (other.prepare('select count(*) as c from n').get() as { c: number }).c;
  return { db, wal, other, count };
}

t.test('idle: the statements commit before it returns, and durable waits for the WAL sync', async (t) => {
  const { db, wal, count } = await fixture(t);
  const done = idleWriteTransaction(db, (exec) => {
    exec('insert into n (v) values (?)', [1]);
    exec('insert into n (v) values (?)', [2]);
    return exec('select sum(v) as s from n', []);
  });
  if (!done) throw new Error('expected the transaction to run');
  t.same(done.result, [{ s: 3 }], 'a read inside sees its own writes');
  t.equal(count(), 2, 'committed: another connection sees both rows at once');
  t.equal(wal.calls, 1, 'one WAL sync asked for');
  let durable = false;
  void done.durable.then(() => (durable = true));
  await new Promise((resolve) => setImmediate(resolve));
  t.equal(durable, false, 'not durable while the sync runs');
  wal.release();
  await done.durable;
  t.equal(durable, true, 'durable once the WAL is synced');

  const read = idleWriteTransaction(db, (exec) => exec('select count(*) as c from n', []));
  t.same(read?.result, [{ c: 2 }]);
  t.equal(wal.calls, 1, 'a transaction that only read asks for no sync');
});

t.test('not while a query holds the connection: fn does not run', async (t) => {
  const { db, wal, count } = await fixture(t);
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const progress = { inside: false };
  const held = db.transaction().execute(async (tx) => {
    await sql`insert into n (v) values (10)`.execute(tx);
    progress.inside = true;
    await gate;
  });
  while (!progress.inside) await new Promise((resolve) => setImmediate(resolve));
  let ran = false;
  t.equal(
    idleWriteTransaction(db, () => (ran = true)),
    null,
    'null while a transaction is under way',
  );
  t.equal(ran, false, 'fn was not run');
  wal.hold = false;
  release();
  await held;
  t.equal(count(), 1, 'the held transaction committed alone');
});

t.test('not while another connection holds the write lock: fn does not run', async (t) => {
  const { db, other, count } = await fixture(t);
  other.exec('begin immediate');
  let ran = false;
  t.equal(
    idleWriteTransaction(db, () => (ran = true)),
    null,
  );
  t.equal(ran, false, 'fn was not run, and it did not wait in SQLite’s busy handler');
  other.exec('commit');
  const done = idleWriteTransaction(db, (exec) => exec('insert into n (v) values (?)', [5]));
  t.ok(done, 'runs once the lock is free');
  t.equal(count(), 1);
});

t.test('fn throws: nothing it wrote stays, the error goes on, the connection works after', async (t) => {
  const { db, wal, count } = await fixture(t);
  t.throws(
    () =>
      idleWriteTransaction(db, (exec) => {
        exec('insert into n (v) values (?)', [1]);
        throw new Error('bad record');
      }),
    { message: 'bad record' },
  );
  t.equal(count(), 0, 'rolled back');
  t.equal(wal.calls, 0, 'no sync for a rollback');
  t.throws(
    () => idleWriteTransaction(db, (exec) => exec('insert into nowhere (v) values (?)', [1])),
    /no such table/,
    'an error of SQLite itself too',
  );
  wal.hold = false;
  await db.transaction().execute((tx) => sql`insert into n (v) values (7)`.execute(tx));
  t.equal(count(), 1, 'a kysely transaction runs after it');
  t.ok(
    idleWriteTransaction(db, (exec) => exec('insert into n (v) values (?)', [8])),
    'and it runs again',
  );
  t.equal(count(), 2);
});

t.test('a transaction or another database: null', async (t) => {
  const { db, wal } = await fixture(t);
  wal.hold = false;
  const inner = db.transaction().execute(async (tx) => idleWriteTransaction(tx, () => 1));
  t.equal(await inner, null, 'a kysely transaction object is not a database opened here');
  t.equal(
    idleWriteTransaction(db.withoutPlugins(), () => 1),
    null,
    'nor is another Kysely instance on the same connection',
  );
});
