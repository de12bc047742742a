import path from 'node:path';
import { sql } from 'kysely';
import t from 'tap';
import { openDatabase } from '../../src/db/index.js';

/**
 * SQLite with several writer processes (RADIUS workers, the CLI): a transaction that finds the
 * write lock taken waits for it with timers, so the rest of the process keeps running, and
 * begins once the lock is free; it fails with SQLITE_BUSY only after busy_timeout.
 */

const turns = (n: number) =>
  (async () => {
    for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
  })();

t.test(
  'a transaction waits for another connection’s write lock without stopping the event loop',
  async (t) => {
    const file = path.join(t.testdir(), 'lock.db');
    const a = openDatabase(file);
    const b = openDatabase(file);
    t.teardown(async () => {
      await a.db.destroy();
      await b.db.destroy();
    });
    await sql`create table n (v integer)`.execute(a.db);

    b.sqlite.exec('begin immediate'); // another process's batch holds the write lock
    let done = false;
    const write = a.db
      .transaction()
      .execute((tx) => sql`insert into n (v) values (1)`.execute(tx))
      .then(() => (done = true));
    let ticks = 0;
    const ticking = setInterval(() => ticks++, 1);
    await turns(50);
    await new Promise((resolve) => setTimeout(resolve, 30));
    clearInterval(ticking);
    t.equal(done, false, 'the write waits while the lock is held');
    t.ok(ticks > 0, 'and the event loop kept running meanwhile');

    b.sqlite.exec('insert into n (v) values (2); commit');
    await write;
    t.same(
      b.sqlite
        .prepare('select v from n order by v')
        .all()
        .map((r) => (r as { v: number }).v),
      [1, 2],
      'both writes committed, the waiting one after the holder',
    );
  },
);
