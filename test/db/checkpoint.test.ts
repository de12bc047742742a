import { spawnSync } from 'node:child_process';
import { existsSync, unlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import Database from 'better-sqlite3';
import { sql } from 'kysely';
import t, { type Test } from 'tap';
import { openDatabase } from '../../src/db/index.js';
import { createCheckpointer, SAFETY_NET_PAGES, type CheckpointRound } from '../../src/db/checkpoint.js';

/**
 * checkpoint.ts: a daemon's WAL checkpoints run on a thread, and the WAL still starts over under
 * a steady writer (PASSIVE alone never lets it: the writer always adds frames while the copy
 * runs). Real threads and real files; the tests wait for the thread's rounds, never for time.
 */

/**
 * Frames in the WAL now, as another connection's PASSIVE checkpoint reports them (-1 while the
 * thread's own checkpoint runs: asked again).
 */
function walFrames(file: string): number {
  const probe = new Database(file);
  try {
    for (;;) {
      const frames = (probe.pragma('wal_checkpoint(passive)') as { log: number }[])[0]?.log ?? -1;
      if (frames !== -1) return frames;
    }
  } finally {
    probe.close();
  }
}

/** Rounds the thread reported, and a promise for the first round that satisfies `test`. */
function rounds() {
  const seen: CheckpointRound[] = [];
  const waiters: { test: (r: CheckpointRound) => boolean; resolve: () => void }[] = [];
  return {
    seen,
    onRound: (round: CheckpointRound) => {
      seen.push(round);
      for (const w of waiters.splice(0)) {
        if (w.test(round)) w.resolve();
        else waiters.push(w);
      }
    },
    until(test: (r: CheckpointRound) => boolean): Promise<void> {
      return new Promise((resolve) => waiters.push({ test, resolve }));
    },
  };
}

const require = createRequire(import.meta.url);
const payload = 'x'.repeat(3_000); // about a page a row: each commit adds a few frames

async function box(
  t: Test,
  options: { restartAtFrames: number; roundMs?: number; onRound: (r: CheckpointRound) => void },
) {
  const file = path.join(t.testdir(), 'c.db');
  const { db, sqlite } = openDatabase(file, {
    checkpoints: { roundMs: 2, startAfterCommits: 1, idleMs: 600_000, ...options },
  });
  t.teardown(() => db.destroy());
  await sql`create table r (id integer primary key, body text not null)`.execute(db);
  let written = 0;
  const commit = async () => {
    await sql`insert into r (body) values (${payload}), (${payload})`.execute(db);
    written += 2;
  };
  return { file, db, sqlite, commit, written: () => written };
}

t.test('the daemon connection leaves checkpoints to the thread; the CLI keeps SQLite’s own', async (t) => {
  const dir = t.testdir();
  const daemon = openDatabase(path.join(dir, 'd.db'), { checkpoints: {} });
  const cli = openDatabase(path.join(dir, 'cli.db'));
  t.teardown(async () => {
    await daemon.db.destroy();
    await cli.db.destroy();
  });
  t.equal(daemon.sqlite.pragma('wal_autocheckpoint', { simple: true }), SAFETY_NET_PAGES);
  t.equal(cli.sqlite.pragma('wal_autocheckpoint', { simple: true }), 1000, 'SQLite’s default');
});

/** Commits until a round restarts the WAL (at most `max` commits); whether one did. */
async function commitUntilRestart(r: ReturnType<typeof rounds>, commit: () => Promise<void>, max = 5_000) {
  const state = { restarted: false };
  void r.until((round) => round.restarted).then(() => (state.restarted = true));
  for (let i = 0; i < max && !state.restarted; i++) await commit();
  return state.restarted;
}

t.test('under a steady writer the WAL starts over, and nothing written is lost', async (t) => {
  const r = rounds();
  const { file, commit, written } = await box(t, { restartAtFrames: 200, onRound: r.onRound });
  // The writer does not stop for the thread: it commits while the rounds run.
  t.ok(await commitUntilRestart(r, commit), 'a round ended with RESTART');
  t.ok(
    r.seen.some((round) => round.frames >= 200),
    'the WAL grew past the restart point while the writer ran',
  );
  // The commits since hold the WAL's first frames (a few may have landed before the test heard).
  await commit();
  const frames = walFrames(file);
  t.ok(frames >= 1 && frames < 100, `the WAL started over (${String(frames)} frames)`);

  const other = new Database(file, { readonly: true });
  t.teardown(() => other.close());
  t.equal((other.prepare('select count(*) as c from r').get() as { c: number }).c, written());
  t.equal(other.pragma('integrity_check', { simple: true }), 'ok');
});

t.test('rounds come as fast as the WAL grows, not at the longest wait', async (t) => {
  // With a minute between rounds at most, only rounds timed by the WAL's growth can keep up.
  const r = rounds();
  const { commit } = await box(t, { restartAtFrames: 100, roundMs: 60_000, onRound: r.onRound });
  t.ok(await commitUntilRestart(r, commit), 'a restart within seconds');
});

t.test('without restarts the WAL only grows: the same writer with the thread off', async (t) => {
  // The control for the tests above: SQLite's checkpoint at the safety net is far away, so
  // without the thread nothing starts the WAL over.
  const file = path.join(t.testdir(), 'c.db');
  const { db } = openDatabase(file, { checkpoints: { startAfterCommits: Number.MAX_SAFE_INTEGER } });
  t.teardown(() => db.destroy());
  await sql`create table r (id integer primary key, body text not null)`.execute(db);
  for (let i = 0; i < 100; i++) await sql`insert into r (body) values (${payload}), (${payload})`.execute(db);
  t.ok(walFrames(file) > 200, 'every commit’s frames are still in the WAL');
});

t.test('a reader in the WAL: RESTART gives up, the writer goes on, and it restarts after', async (t) => {
  const r = rounds();
  const { file, db, commit } = await box(t, { restartAtFrames: 10, onRound: r.onRound });
  for (let i = 0; i < 5; i++) await commit();
  // A long read (a report): its snapshot pins the WAL.
  const reader = new Database(file, { readonly: true });
  t.teardown(() => reader.close());
  reader.prepare('begin').run();
  reader.prepare('select count(*) from r').get();
  const from = r.seen.length;
  const gaveUp = r.until((round) => round.gaveUp);
  for (let i = 0; i < 20; i++) await commit();
  await gaveUp;
  t.notOk(
    r.seen.slice(from).some((round) => round.restarted),
    'no round restarts the WAL while the reader holds it',
  );
  reader.prepare('commit').run();
  t.ok(await commitUntilRestart(r, commit), 'once the reader is gone, a later round restarts it');
  const count = await sql<{ c: number }>`select count(*) as c from r`.execute(db);
  t.ok((count.rows[0]?.c ?? 0) >= 50, 'every commit went through');
});

t.test('the thread starts after enough commits, and ends when nothing is written', async (t) => {
  const file = path.join(t.testdir(), 'c.db');
  const sqlite = new Database(file);
  sqlite.pragma('journal_mode = WAL');
  t.teardown(() => sqlite.close());
  sqlite.exec('create table r (v integer)');
  const r = rounds();
  const cp = createCheckpointer(file, { startAfterCommits: 5, roundMs: 2, idleMs: 30, onRound: r.onRound });
  const insert = sqlite.prepare('insert into r (v) values (1)');
  for (let i = 0; i < 4; i++) {
    insert.run();
    cp.committed();
  }
  t.equal(cp.running, false, 'not after four commits');
  insert.run();
  cp.committed();
  t.equal(cp.running, true, 'started at the fifth');
  await r.until(() => true);
  await new Promise<void>((resolve) => {
    const check = () => (cp.running ? setImmediate(check) : resolve());
    check();
  });
  t.pass('it ended');
  insert.run();
  cp.committed();
  t.equal(cp.running, false, 'one commit does not start it again');
  t.equal(walFrames(file), 1, 'its rounds left every frame copied back: that commit started the WAL over');

  // The process still holds SQLite's locks: closing any descriptor of the -shm file (as a thread
  // reading it would) drops them all, and another process could then write beside this one.
  sqlite.prepare('begin immediate').run();
  const other = spawnSync(
    process.execPath,
    [
      '-e',
      `const D = require(${JSON.stringify(require.resolve('better-sqlite3'))});
       try {
         const db = new D(${JSON.stringify(file)}, { timeout: 0 });
         db.prepare('begin immediate').run();
         console.log('got the write lock');
       } catch (err) { console.log(err.code, err.message); }`,
    ],
    { encoding: 'utf8' },
  );
  sqlite.prepare('rollback').run();
  t.match(other.stdout, /^SQLITE_BUSY/, `another process waits for our write lock (${other.stderr})`);
  await cp.close();
});

t.test('after a restart the thread makes the first commit into the new WAL, changing nothing', async (t) => {
  // That commit writes the WAL's header and fsyncs it: on the thread, not on a writer's loop.
  const file = path.join(t.testdir(), 'c.db');
  const sqlite = new Database(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('wal_autocheckpoint = 0');
  sqlite.pragma('user_version = 7');
  t.teardown(() => sqlite.close());
  sqlite.exec('create table r (body text)');
  const insert = sqlite.prepare('insert into r (body) values (?)');
  for (let i = 0; i < 20; i++) insert.run(payload);
  const r = rounds();
  const cp = createCheckpointer(file, {
    startAfterCommits: 1,
    restartAtFrames: 10,
    roundMs: 2,
    onRound: r.onRound,
  });
  t.teardown(() => cp.close());
  const restarted = r.until((round) => round.restarted);
  cp.committed(); // nothing writes from here on: only the thread can
  await restarted;
  t.equal(walFrames(file), 1, 'the WAL holds one frame, the thread’s commit');
  t.equal(sqlite.pragma('user_version', { simple: true }), 7, 'user_version as it was');
  t.equal((sqlite.prepare('select count(*) as c from r').get() as { c: number }).c, 20);
});

t.test('a thread that cannot run: the error is reported once, and it is not started again', async (t) => {
  const errors: Error[] = [];
  const missing = path.join(t.testdir(), 'gone.db');
  const cp = createCheckpointer(missing, { startAfterCommits: 1, onError: (err) => errors.push(err) });
  cp.committed();
  t.equal(cp.running, true);
  await new Promise<void>((resolve) => {
    const check = () => (cp.running ? setImmediate(check) : resolve());
    check();
  });
  t.equal(errors.length, 1);
  t.match(errors[0]?.message, /^WAL checkpoint thread: unable to open database file/);
  cp.committed();
  cp.committed();
  t.equal(cp.running, false, 'no new thread');
  await cp.close();
});

t.test('the daemon connection goes back to SQLite’s own checkpoints when the thread fails', async (t) => {
  const file = path.join(t.testdir(), 'c.db');
  const errors: Error[] = [];
  const { db, sqlite } = openDatabase(file, {
    checkpoints: { startAfterCommits: 3, onError: (err) => errors.push(err) },
  });
  t.teardown(() => db.destroy());
  await sql`create table r (v integer)`.execute(db);
  // The thread will not find the file: the connection works on, on the unlinked inode.
  unlinkSync(file);
  for (let i = 0; i < 3; i++) await sql`insert into r (v) values (1)`.execute(db);
  await new Promise<void>((resolve) => {
    const check = () => (errors.length > 0 ? resolve() : setImmediate(check));
    check();
  });
  t.equal(sqlite.pragma('wal_autocheckpoint', { simple: true }), 1000, 'SQLite’s default again');
});

t.test('closing the database ends the thread first: SQLite then removes the WAL', async (t) => {
  const r = rounds();
  const { file, db, commit } = await box(t, { restartAtFrames: 1_000, onRound: r.onRound });
  for (let i = 0; i < 10; i++) await commit();
  await r.until(() => true);
  await db.destroy();
  t.equal(existsSync(`${file}-wal`), false, 'the WAL is gone: the daemon’s was the last connection');
  const after = new Database(file, { readonly: true });
  t.teardown(() => after.close());
  t.equal((after.prepare('select count(*) as c from r').get() as { c: number }).c, 20);
});
