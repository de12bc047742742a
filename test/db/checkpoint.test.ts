import { existsSync } from 'node:fs';
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

const payload = 'x'.repeat(3_000); // about a page a row: each commit adds a few frames

async function box(t: Test, options: { restartAtFrames: number; onRound: (r: CheckpointRound) => void }) {
  const file = path.join(t.testdir(), 'c.db');
  const { db, sqlite } = openDatabase(file, {
    checkpoints: { roundMs: 2, startAfterCommits: 1, idleRounds: 1_000_000, ...options },
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

t.test('under a steady writer the WAL starts over, and nothing written is lost', async (t) => {
  const r = rounds();
  const { file, commit, written } = await box(t, { restartAtFrames: 40, onRound: r.onRound });
  const state = { restarted: false };
  void r.until((round) => round.restarted).then(() => (state.restarted = true));
  // The writer does not stop for the thread: it commits while the rounds run.
  for (let i = 0; i < 5_000 && !state.restarted; i++) await commit();
  t.ok(state.restarted, 'a round ended with RESTART');
  t.ok(
    r.seen.some((round) => round.frames >= 40),
    'the WAL grew past the restart point while the writer ran',
  );
  // The next writer starts the WAL over: it holds only that commit's frames.
  await commit();
  const frames = walFrames(file);
  t.ok(frames >= 1 && frames < 20, `the WAL started over (${String(frames)} frames)`);

  const other = new Database(file, { readonly: true });
  t.teardown(() => other.close());
  t.equal((other.prepare('select count(*) as c from r').get() as { c: number }).c, written());
  t.equal(other.pragma('integrity_check', { simple: true }), 'ok');
});

t.test('a round reads the WAL’s length from the -shm file: what SQLite reports', async (t) => {
  const r = rounds();
  const { file, commit } = await box(t, { restartAtFrames: 1_000_000, onRound: r.onRound });
  for (let i = 0; i < 30; i++) await commit();
  // Two rounds after the last commit: the second read the WAL as it now stays.
  const seen = r.seen.length;
  await r.until(() => r.seen.length >= seen + 2);
  const last = r.seen.at(-1);
  t.ok(last && last.frames > 60, 'thirty commits of two rows');
  t.equal(last?.frames, walFrames(file), 'the same length as wal_checkpoint reports');
  t.notOk(
    r.seen.some((round) => round.checkpointed),
    'below the restart point no round checkpoints: each read the length without one',
  );
});

t.test('without restarts the WAL only grows: the same writer with the thread off', async (t) => {
  // The control for the test above: SQLite's checkpoint at the safety net is far away, so
  // without the thread nothing starts the WAL over.
  const file = path.join(t.testdir(), 'c.db');
  const { db } = openDatabase(file, { checkpoints: { startAfterCommits: Number.MAX_SAFE_INTEGER } });
  t.teardown(() => db.destroy());
  await sql`create table r (id integer primary key, body text not null)`.execute(db);
  for (let i = 0; i < 100; i++) await sql`insert into r (body) values (${payload}), (${payload})`.execute(db);
  t.ok(walFrames(file) > 200, 'every commit’s frames are still in the WAL');
});

t.test('a reader that holds the WAL: RESTART gives up at once and the writer goes on', async (t) => {
  const r = rounds();
  const { file, db, commit } = await box(t, { restartAtFrames: 10, onRound: r.onRound });
  for (let i = 0; i < 5; i++) await commit();
  // A long read (a report): its snapshot pins the WAL.
  const reader = new Database(file, { readonly: true });
  t.teardown(() => reader.close());
  reader.prepare('begin').run();
  reader.prepare('select count(*) from r').get();
  const seenBefore = r.seen.length;
  // The writer keeps committing through the thread's rounds, RESTART included.
  await r.until(() => r.seen.length >= seenBefore + 3);
  for (let i = 0; i < 20; i++) await commit();
  await r.until(() => r.seen.length >= seenBefore + 6);
  t.notOk(
    r.seen.slice(seenBefore).some((round) => round.restarted),
    'no round claims a restart while the reader holds the WAL',
  );
  reader.prepare('commit').run();
  const count = await sql<{ c: number }>`select count(*) as c from r`.execute(db);
  t.equal(count.rows[0]?.c, 50, 'every commit went through');
});

t.test('the thread starts after enough commits, and ends when nothing is written', async (t) => {
  const file = path.join(t.testdir(), 'c.db');
  const sqlite = new Database(file);
  sqlite.pragma('journal_mode = WAL');
  t.teardown(() => sqlite.close());
  sqlite.exec('create table r (v integer)');
  const r = rounds();
  const cp = createCheckpointer(file, {
    startAfterCommits: 5,
    roundMs: 2,
    idleRounds: 3,
    onRound: r.onRound,
  });
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
  const ended = new Promise<void>((resolve) => {
    const check = () => (cp.running ? setImmediate(check) : resolve());
    check();
  });
  await ended;
  t.ok(r.seen.length >= 3, 'it ended after its idle rounds');
  insert.run();
  cp.committed();
  t.equal(cp.running, false, 'one commit does not start it again');
  t.equal(walFrames(file), 1, 'it left every frame copied back: that commit started the WAL over');
  await cp.close();
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
  t.equal(cp.running, false, 'SQLite’s own checkpoints carry on: no new thread');
  await cp.close();
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
