import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { AppError } from '../lib/errors.js';

/**
 * One daemon per data directory (issue 20, item 7). The daemon holds an exclusive lock on
 * `<data dir>/daemon.lock` for its whole life, and `restore` holds it while it swaps the database,
 * so neither runs while the other does, and a second `serve` refuses.
 *
 * The lock is SQLite's own: an exclusive transaction opened on an empty file, which SQLite takes
 * as a POSIX advisory (fcntl) lock. The kernel holds such a lock for the process and drops it when
 * the process ends, however it ends (SIGKILL, a crash, a power cut): no stale lock to detect, and
 * no pid to trust (a pid file lies after a reboot, when the recorded pid belongs to another
 * process). Node has no flock of its own; better-sqlite3 is already here, even with PostgreSQL.
 * The file is never deleted: a process could otherwise lock an unlinked file while another
 * creates a fresh one.
 */

export const DIR_LOCK_FILE = 'daemon.lock';
/** The holding daemon's pid, for people and for the refusal message; the lock is what counts. */
export const DAEMON_PID_FILE = 'daemon.pid';

/** Why a second daemon may not start: one line, naming the holder when daemon.pid does. */
export function daemonRunningError(pid: number | null): AppError {
  const who =
    pid === null ? 'another hotspot-ctl process' : `another hotspot-ctl daemon (pid ${String(pid)})`;
  return new AppError(
    'daemonRunning',
    409,
    `${who} holds this data directory: stop it first (one daemon per data directory)`,
  );
}

export interface DataDirLock {
  /** Lets go of the lock (and removes daemon.pid when the daemon held it). Idempotent. */
  release(): void;
}

/**
 * Takes the data directory's lock without waiting; throws `held()` when another process has it.
 * `daemon`: the daemon's lock, which also records its pid in daemon.pid.
 */
export function lockDataDir(
  dataDir: string,
  options: { daemon: boolean; held: (pid: number | null) => Error },
): DataDirLock {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(dataDir, DIR_LOCK_FILE);
  closeSync(openSync(file, 'a', 0o600));
  const db = new Database(file, { timeout: 0 });
  try {
    db.exec('begin exclusive');
  } catch (err) {
    db.close();
    if ((err as { code?: string }).code === 'SQLITE_BUSY') throw options.held(holderPid(dataDir));
    throw err;
  }
  const pidFile = path.join(dataDir, DAEMON_PID_FILE);
  if (options.daemon) writeFileSync(pidFile, `${String(process.pid)}\n`, { mode: 0o600 });
  return {
    release() {
      if (!db.open) return;
      if (options.daemon) rmSync(pidFile, { force: true });
      db.close(); // ends the transaction: the lock goes
    },
  };
}

/** The pid in daemon.pid, if it reads as one. */
function holderPid(dataDir: string): number | null {
  const file = path.join(dataDir, DAEMON_PID_FILE);
  if (!existsSync(file)) return null;
  const pid = Number(readFileSync(file, 'utf8').trim());
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}

/** The daemon's lock: refuses with one clear line naming the holder when another daemon (or a restore) has it. */
export function lockForDaemon(dataDir: string): DataDirLock {
  return lockDataDir(dataDir, { daemon: true, held: daemonRunningError });
}

/**
 * Whether a daemon (or a restore) holds the data directory now, for `doctor`: a daemon too busy
 * to answer /healthz in time still holds its lock. Takes the lock and lets go of it at once; a
 * daemon starting in that instant is refused and restarted by systemd.
 */
export function dataDirHeld(dataDir: string): boolean {
  if (!existsSync(path.join(dataDir, DIR_LOCK_FILE))) return false;
  const lock = lockIfFree(dataDir);
  lock?.release();
  return lock === null;
}

/** The data directory's lock (not the daemon's: no pid file) when nobody holds it, else null. */
export function lockIfFree(dataDir: string): DataDirLock | null {
  const held = new Error('held');
  try {
    return lockDataDir(dataDir, { daemon: false, held: () => held });
  } catch (err) {
    if (err === held) return null;
    throw err;
  }
}
