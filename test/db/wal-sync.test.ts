import { existsSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { migrateToLatest, openDatabase } from '../../src/db/index.js';
import { createWalSync, type WalSync } from '../../src/db/wal-sync.js';

/** Durability without stalling: a write waits for the WAL's fdatasync, nobody else does. */

/** A WAL sync the test opens and closes like a gate, counting the syncs asked for. */
function gatedSync() {
  let open = true;
  let waiting: (() => void)[] = [];
  const gate = {
    calls: 0,
    close: () => {
      open = false;
    },
    release: () => {
      open = true;
      for (const w of waiting.splice(0)) w();
    },
  };
  const wal: WalSync = {
    sync: () => {
      gate.calls++;
      return open ? Promise.resolve() : new Promise<void>((resolve) => waiting.push(resolve));
    },
    close: () => {
      waiting = [];
      return Promise.resolve();
    },
  };
  return { gate, wal };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

t.test('a write is answered only after the WAL sync, while reads go on meanwhile', async (t) => {
  const { gate, wal } = gatedSync();
  const { db } = openDatabase(path.join(t.testdir(), 'gated.db'), { wal });
  t.teardown(() => db.destroy());
  await migrateToLatest(db);

  gate.close();
  const before = gate.calls;
  let inserted = false;
  const insert = db
    .insertInto('app_meta')
    .values({ key: 'k', value: 'v', updated_at: 'x' })
    .execute()
    .then(() => (inserted = true));
  await settle();
  t.equal(gate.calls, before + 1, 'the insert asked for a sync');
  t.notOk(inserted, 'and is not answered before it');
  // The connection was handed on: a read runs (and sees the committed row) without a sync.
  t.same(await db.selectFrom('app_meta').select('value').where('key', '=', 'k').execute(), [{ value: 'v' }]);
  t.equal(gate.calls, before + 1, 'a read does not sync');

  let committed = false;
  const tx = db
    .transaction()
    .execute((trx) =>
      trx.insertInto('app_meta').values({ key: 'k2', value: 'v2', updated_at: 'x' }).execute(),
    )
    .then(() => (committed = true));
  await settle();
  t.notOk(committed, 'a transaction is not answered before its sync either');
  gate.release();
  await Promise.all([insert, tx]);
  t.same([inserted, committed], [true, true], 'both answered once the sync is done');
});

t.test('the real sync fdatasyncs the current -wal file and shares syncs between commits', async (t) => {
  const dir = t.testdir();
  const file = path.join(dir, 'real.db');
  const probe = await open(path.join(dir, 'probe'), 'w');
  const proto = Object.getPrototypeOf(probe) as { datasync: () => Promise<void> };
  await probe.close();
  const original = proto.datasync;
  const synced: string[] = [];
  // Count the real fdatasyncs (and which file they hit) without changing what they do.
  proto.datasync = function (this: { fd: number }) {
    synced.push(String(this.fd));
    return original.call(this);
  };
  t.teardown(() => {
    proto.datasync = original;
  });

  const wal = createWalSync(file);
  await wal.sync(); // no -wal yet: nothing to do
  t.same(synced, []);

  const { db } = openDatabase(file, { wal });
  t.teardown(() => db.destroy());
  await migrateToLatest(db);
  t.ok(existsSync(`${file}-wal`));
  synced.length = 0;
  await Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      db
        .insertInto('app_meta')
        .values({ key: `k${String(i)}`, value: 'v', updated_at: 'x' })
        .execute(),
    ),
  );
  t.ok(synced.length >= 1 && synced.length < 10, `ten commits shared ${String(synced.length)} syncs`);

  // SQLite recreated the -wal file (as after the last connection closed): the new one is synced.
  const oldIno = statSync(`${file}-wal`).ino;
  renameSync(`${file}-wal`, `${file}-wal.old`);
  writeFileSync(`${file}-wal`, '');
  t.not(statSync(`${file}-wal`).ino, oldIno);
  synced.length = 0;
  await wal.sync();
  t.equal(synced.length, 1, 'the replaced file was opened and synced');
});

t.test('after close, a sync neither opens the -wal file again nor fails', async (t) => {
  const file = path.join(t.testdir(), 'closed.db');
  const walFile = `${file}-wal`;
  writeFileSync(walFile, 'frames');
  const { readdirSync, readlinkSync } = await import('node:fs');
  const walHandles = () =>
    readdirSync('/proc/self/fd').filter((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`) === walFile;
      } catch {
        return false;
      }
    }).length;
  const wal = createWalSync(file);
  await wal.sync();
  t.equal(walHandles(), 1, 'open while in use');
  await wal.close();
  t.equal(walHandles(), 0, 'closed');
  await wal.sync();
  t.equal(walHandles(), 0, 'a late sync did not reopen it');
});
