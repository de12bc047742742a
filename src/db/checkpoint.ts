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
 * - Each round reads the WAL's length from the -shm file. Once it holds `restartAt` frames (as
 *   many as SQLite's own checkpoint waits for), PASSIVE copies it without stopping anyone. Under
 *   a steady writer that is not enough: SQLite starts the WAL over only when a writer begins
 *   while every frame is already in the database file, and the writer always adds frames while
 *   the copy runs, so the WAL would grow for as long as the load lasts.
 * - So RESTART follows: it takes the write lock, copies the few frames written while PASSIVE ran,
 *   waits for readers to leave the WAL and starts it over (the next commit writes at its
 *   beginning). Writers meanwhile do not block their event loop: BEGIN IMMEDIATE fails at once
 *   and they wait with timers (connect.ts `beginTransaction`), or go through the queue instead of
 *   the idle path (connect.ts `idleWriteTransaction`). It waits at most `RESTART_WAIT_MS`. A long
 *   read (a report) makes it give up, and RESTART is then left alone for a while, longer each
 *   time it gives up again: no checkpoint can start the WAL over under a reader, SQLite's own
 *   neither.
 *
 * The thread starts once the process committed `START_AFTER_COMMITS` writes (a test box or an
 * idle daemon never pays for one: idle RSS, bench/footprint.ts), and ends after
 * `IDLE_ROUNDS` rounds in which nothing was written. Each process with a daemon connection has
 * its own (a RADIUS worker's too); SQLite lets one checkpoint run at a time, and another finds it
 * busy and tries next round.
 */

/** The daemon connection's `wal_autocheckpoint`: SQLite's own checkpoint, only when the thread does not keep up. */
export const SAFETY_NET_PAGES = 10_000;
/** The WAL's length, in frames, at which a round checkpoints and starts it over (SQLite's own default). */
const RESTART_AT_FRAMES = 1_000;
/**
 * Between rounds. A heavy writer adds tens of thousands of frames a second (27 random row updates
 * a commit write 28 pages): the WAL then reaches about twice `restartAt` before a round starts
 * it over.
 */
const ROUND_MS = 25;
/** Rounds without a new frame before the thread ends (10 s). */
const IDLE_ROUNDS = 400;
/** How long RESTART waits for the write lock and for readers to leave the WAL. */
const RESTART_WAIT_MS = 20;
/** How long RESTART is left alone after it gave up; doubled each time it gives up again, to `HOLD_OFF_MAX_MS`. */
const HOLD_OFF_MS = 250;
const HOLD_OFF_MAX_MS = 4_000;
const START_AFTER_COMMITS = 100;

export interface CheckpointOptions {
  /** Hears why the thread failed; SQLite's own checkpoints (the safety net) then carry on alone. */
  onError?: (err: Error) => void;
  /** Hears each round the thread ran (tests). */
  onRound?: (round: CheckpointRound) => void;
  /** Tests: smaller figures. */
  restartAtFrames?: number;
  roundMs?: number;
  idleRounds?: number;
  startAfterCommits?: number;
}

/** One round, as the thread saw it. */
export interface CheckpointRound {
  /** Frames in the WAL when the round began (-1: another checkpoint was running). */
  frames: number;
  /** Whether it checkpointed (PASSIVE): the WAL was long, or its length could not be read. */
  checkpointed: boolean;
  /** Whether RESTART ran and completed: the WAL was started over. */
  restarted: boolean;
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
const fs = require('node:fs');
const os = require('node:os');
let db = null, shm = null, passive, restart, begin, commit, rollback, getVersion, setVersion, timer = null;
let lastFrames = -1, idle = 0, stopped = false;
let holdOffUntil = 0, holdOffMs = w.holdOffMs;
// SQLite's errors do not cross to the parent intact (a plain object arrives): their message does.
function fail(err) {
  parentPort.postMessage({ failed: String(err && err.message ? err.message : err) });
  stop();
}
const header = Buffer.alloc(96);
const u32 = os.endianness() === 'LE' ? (at) => header.readUInt32LE(at) : (at) => header.readUInt32BE(at);
// The WAL's length in frames, from the wal-index header at the start of the -shm file
// (https://www.sqlite.org/walformat.html: two copies of a 48-byte header, version 3007000 at 0,
// isInit at 12, mxFrame at 16, in the machine's byte order). A read of 96 bytes, no lock, nothing
// copied: the rounds look often and checkpoint only when the WAL is long, as often as SQLite's own
// would. Null when the copies differ (a writer was updating them) or it is not that layout: the
// round then asks PASSIVE.
function walFrames() {
  if (shm === null || fs.readSync(shm, header, 0, 96, 0) < 96) return null;
  if (header.compare(header, 48, 96, 0, 48) !== 0 || u32(0) !== 3007000 || header[12] !== 1) return null;
  return u32(16);
}
function round() {
  try {
    let frames = walFrames();
    let checkpointed = false, restarted = false;
    if (frames === null || frames >= w.restartAt) {
      const p = passive.get();
      checkpointed = true;
      frames = p.log;
      // The WAL is long: start it over. PASSIVE copied what it held when it began; RESTART copies
      // what was written since, with writers held off, and starts the WAL over.
      if (p.log >= w.restartAt && Date.now() >= holdOffUntil) {
        if (restart.get().busy) {
          holdOffUntil = Date.now() + holdOffMs;
          holdOffMs = Math.min(holdOffMs * 2, w.holdOffMaxMs);
        } else {
          restarted = true;
          holdOffMs = w.holdOffMs;
          firstCommit();
        }
      }
    }
    idle = frames === lastFrames ? idle + 1 : 0;
    lastFrames = frames;
    if (w.report) parentPort.postMessage({ frames, checkpointed, restarted });
    if (idle < w.idleRounds) timer = setTimeout(round, w.roundMs);
    else {
      // Nothing written for a while: copy back what the WAL holds (the next writer starts it
      // over), and end.
      if (frames !== 0) passive.get();
      stop();
    }
  } catch (err) {
    fail(err);
  }
}
// The first commit into a started-over WAL writes its header and fsyncs it, even under
// synchronous=NORMAL: this thread makes that commit (an unchanged user_version), so the fsync is
// not on a writer's event loop. A writer that gets there first pays it, as it would without this
// thread.
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
    rollback.run();
    throw err;
  }
}
function stop() {
  if (stopped) return;
  stopped = true;
  clearTimeout(timer);
  if (shm !== null) fs.closeSync(shm);
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
  try {
    shm = fs.openSync(w.file + '-shm', 'r');
  } catch {
    shm = null; // every round asks PASSIVE
  }
  timer = setTimeout(round, w.roundMs);
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
        idleRounds: options.idleRounds ?? IDLE_ROUNDS,
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
      // Not started again: SQLite's own checkpoints at the safety net keep the WAL bounded.
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
