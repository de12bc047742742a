import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * WAL checkpoints off the event loop (docs/decisions/0055-wal-checkpoints-on-a-thread.md).
 *
 * SQLite copies the WAL back into the database file (a checkpoint) inside the COMMIT that takes
 * the WAL past `wal_autocheckpoint` pages. better-sqlite3 is synchronous, so that copy and its two
 * fsyncs (the WAL before, the database file after, under synchronous=NORMAL) stop every request
 * of the process: milliseconds on this box, far longer on a venue's SD card. So a daemon's
 * connection raises `wal_autocheckpoint` to a safety net (`SAFETY_NET_PAGES`: it only acts when
 * this thread is not running or cannot keep up), and a worker thread with its own connection
 * does the checkpoints instead, in rounds:
 *
 * - Each round runs PASSIVE: it copies what the WAL holds without stopping anyone, and tells its
 *   length. Under a steady writer that is not enough: SQLite starts the WAL over only when a
 *   writer begins while every frame is already in the database file, and the writer always adds
 *   frames while the copy runs, so the WAL would grow for as long as the load lasts.
 * - So once it holds `restartAt` frames, RESTART follows: it takes the write lock, copies the few
 *   frames written while PASSIVE ran, waits for readers to leave the WAL and starts it over (the
 *   next commit writes at its beginning). Writers meanwhile do not block their event loop: BEGIN
 *   IMMEDIATE fails at once and they wait with timers (connect.ts `beginTransaction`), or go
 *   through the queue instead of the idle path (connect.ts `idleWriteTransaction`). It waits at
 *   most `RESTART_WAIT_MS`. A long read (a report) makes it give up, and RESTART is then left
 *   alone for a while, longer each time it gives up again: no checkpoint can start the WAL over
 *   under a reader, SQLite's own neither.
 * - The next round comes when the WAL should reach `restartAt` at the rate it grew since the last
 *   one: about once per `restartAt` frames, as often as SQLite's own checkpoint (a round per
 *   commit would copy the same hot pages over and over), at least every `ROUND_MIN_MS` and at
 *   most every `ROUND_MS`. Intervals are read from the monotonic clock: they schedule work, they
 *   are not the time of anything recorded.

 * The thread never opens the -shm or -wal files itself: closing a file descriptor drops every
 * POSIX lock the process holds on that file, SQLite's included (sqlite.org/howtocorrupt.html).
 *
 * The thread starts once the process committed `START_AFTER_COMMITS` writes (a test box or an
 * idle daemon never pays for one: idle RSS, bench/footprint.ts), and ends after `IDLE_MS`
 * without a new frame. Each process with a daemon connection has its own (a RADIUS worker's too);
 * SQLite lets one checkpoint run at a time, and another finds it busy and tries next round.
 */

/** The daemon connection's `wal_autocheckpoint`: SQLite's own checkpoint, only when the thread does not keep up. */
export const SAFETY_NET_PAGES = 10_000;
/** SQLite's default `wal_autocheckpoint`: the connection's again if the thread fails. */
export const SQLITE_CHECKPOINT_PAGES = 1_000;
/** The WAL's length, in frames, at which a round starts it over (SQLite's own checkpoint point). */
const RESTART_AT_FRAMES = SQLITE_CHECKPOINT_PAGES;
/** The longest wait between rounds (an idle WAL's PASSIVE copies nothing and costs microseconds). */
const ROUND_MS = 1_000;
/**
 * The shortest. A heavy writer adds tens of thousands of frames a second (27 random row updates a
 * commit write 28 pages).
 */
const ROUND_MIN_MS = 5;
/** Without a new frame for this long, the thread ends. */
const IDLE_MS = 10_000;
/** How long RESTART waits for the write lock and for readers to leave the WAL. */
const RESTART_WAIT_MS = 20;
/** How long RESTART is left alone after it gave up; doubled each time it gives up again, to `HOLD_OFF_MAX_MS`. */
const HOLD_OFF_MS = 25;
const HOLD_OFF_MAX_MS = 4_000;
const START_AFTER_COMMITS = 100;

export interface CheckpointOptions {
  /** Hears why the thread failed; SQLite's own checkpoints then carry on alone (connect.ts sets them back). */
  onError?: (err: Error) => void;
  /** Hears each round the thread ran (tests). */
  onRound?: (round: CheckpointRound) => void;
  /** Tests: smaller figures. */
  restartAtFrames?: number;
  /** The longest wait between rounds (the shortest is `ROUND_MIN_MS`, or this if smaller). */
  roundMs?: number;
  idleMs?: number;
  startAfterCommits?: number;
}

/** One round, as the thread saw it. */
export interface CheckpointRound {
  /** Frames in the WAL when the round began (-1: another process's checkpoint was running). */
  frames: number;
  /** Whether RESTART ran and completed: the WAL was started over. */
  restarted: boolean;
  /** Whether RESTART ran and gave up (a reader in the WAL, or the write lock not free in time). */
  gaveUp: boolean;
}

export interface Checkpointer {
  /** A write was committed on the connection: counts towards starting the thread. */
  committed(): void;
  /** Whether the thread is running. */
  readonly running: boolean;
  /** Ends the thread; the caller closes the daemon's connection after (SQLite then removes the WAL). */
  close(): Promise<void>;
}

/** The thread, plain JavaScript so that it runs the same from `src/` (tests) and the bundle. */
const THREAD_SOURCE = `
const { parentPort, workerData: w } = require('node:worker_threads');
let db = null, passive, restart, begin, commit, rollback, getVersion, setVersion, timer = null;
let stopped = false, lastFrames = 0, lastAt = performance.now(), grewAt = performance.now();
let holdOffUntil = 0, holdOffMs = w.holdOffMs;
// SQLite's errors do not cross to the parent intact (a plain object arrives): their message does.
function fail(err) {
  parentPort.postMessage({ failed: String(err && err.message ? err.message : err) });
  stop();
}
function round() {
  try {
    const now = performance.now();
    const frames = passive.get().log;
    let restarted = false, gaveUp = false;
    // The WAL is long: start it over. PASSIVE copied what it held when it began; RESTART copies
    // what was written since, with writers held off, and starts the WAL over.
    if (frames >= w.restartAt && now >= holdOffUntil) {
      if (restart.get().busy) {
        gaveUp = true;
        holdOffUntil = performance.now() + holdOffMs;
        holdOffMs = Math.min(holdOffMs * 2, w.holdOffMaxMs);
      } else {
        restarted = true;
        holdOffMs = w.holdOffMs;
        firstCommit();
      }
    }
    if (w.report) parentPort.postMessage({ frames, restarted, gaveUp });
    // The WAL grew by this many frames since the last round (it may have been started over).
    const grown = frames < 0 ? 0 : frames >= lastFrames ? frames - lastFrames : frames;
    if (grown > 0) grewAt = now;
    const perMs = grown / Math.max(1, now - lastAt);
    lastFrames = restarted ? 0 : Math.max(frames, 0);
    lastAt = now;
    if (now - grewAt >= w.idleMs) {
      stop();
      return;
    }
    const due = perMs > 0 ? (w.restartAt - lastFrames) / perMs : w.roundMs;
    const wait = now < holdOffUntil ? Math.max(holdOffUntil - now, w.roundMinMs) : due;
    timer = setTimeout(round, Math.min(w.roundMs, Math.max(w.roundMinMs, wait)));
  } catch (err) {
    fail(err);
  }
}
// The first commit into a started-over WAL writes its header and fsyncs it, even under
// synchronous=NORMAL: this thread makes that commit (an unchanged user_version), so the fsync is
// not on a writer's event loop. A writer that gets there first pays it, as it would without this
// thread. Other connections see a commit: caches kept until the next commit are read afresh, once
// per restart.
function firstCommit() {
  try {
    begin.run();
  } catch (err) {
    if (err && err.code === 'SQLITE_BUSY') return;
    throw err;
  }
  try {
    setVersion(getVersion());
    commit.run();
  } catch (err) {
    if (db.inTransaction) rollback.run();
    throw err;
  }
}
function stop() {
  if (stopped) return;
  stopped = true;
  clearTimeout(timer);
  if (db) db.close();
  parentPort.close();
}
parentPort.on('message', stop);
try {
  const Database = require(w.driver);
  db = new Database(w.file, { fileMustExist: true });
  // A checkpoint syncs the WAL before it copies and the database file after: the frames it
  // copies are on disk before the WAL may be started over.
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = ' + w.restartWaitMs);
  passive = db.prepare('pragma wal_checkpoint(passive)');
  restart = db.prepare('pragma wal_checkpoint(restart)');
  begin = db.prepare('begin immediate');
  commit = db.prepare('commit');
  rollback = db.prepare('rollback');
  getVersion = () => db.pragma('user_version', { simple: true });
  setVersion = (v) => db.pragma('user_version = ' + Number(v));
  round();
} catch (err) {
  fail(err);
}
`;

/** A checkpointer for the SQLite database `file`, whose daemon connection runs with `SAFETY_NET_PAGES`. */
export function createCheckpointer(file: string, options: CheckpointOptions = {}): Checkpointer {
  const startAfter = options.startAfterCommits ?? START_AFTER_COMMITS;
  let commits = 0;
  let worker: Worker | null = null;
  let exited: Promise<void> = Promise.resolve();
  let failed = false;
  let closed = false;

  const start = (): void => {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    const thread = new Worker(THREAD_SOURCE, {
      eval: true,
      execArgv: [], // no --import loaders in it (tests run under a TypeScript loader)
      workerData: {
        driver,
        file,
        restartAt: options.restartAtFrames ?? RESTART_AT_FRAMES,
        roundMs: options.roundMs ?? ROUND_MS,
        roundMinMs: Math.min(ROUND_MIN_MS, options.roundMs ?? ROUND_MS),
        idleMs: options.idleMs ?? IDLE_MS,
        restartWaitMs: RESTART_WAIT_MS,
        holdOffMs: HOLD_OFF_MS,
        holdOffMaxMs: HOLD_OFF_MAX_MS,
        report: options.onRound !== undefined, // else the rounds do not wake the event loop
      },
    });
    thread.unref(); // it never holds the process open
    worker = thread;
    exited = new Promise((resolve) => thread.once('exit', () => resolve()));
    const failure = (err: Error): void => {
      // Not started again: SQLite's own checkpoints take over (connect.ts).
      failed = true;
      options.onError?.(err);
    };
    thread.on('message', (message: CheckpointRound | { failed: string }) => {
      if ('failed' in message) failure(new Error(`WAL checkpoint thread: ${message.failed}`));
      else options.onRound?.(message);
    });
    thread.once('error', failure);
    void exited.then(() => {
      if (worker === thread) worker = null;
      commits = 0;
    });
  };

  return {
    committed() {
      if (worker || failed || closed) return;
      if (++commits >= startAfter) {
        commits = 0;
        start();
      }
    },
    get running() {
      return worker !== null;
    },
    async close() {
      closed = true;
      worker?.ref(); // the process waits for it to end
      worker?.postMessage('stop');
      await exited;
    },
  };
}
