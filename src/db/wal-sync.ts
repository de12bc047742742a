import { statSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';

/**
 * Makes committed transactions durable without blocking the event loop. The database runs WAL
 * with synchronous=NORMAL, so SQLite writes a commit's frames to the -wal file but does not fsync
 * it (better-sqlite3 is synchronous: FULL would stall every request for each fsync, milliseconds
 * on real disks). Instead, before a caller learns its transaction committed, this fdatasyncs the
 * -wal file on libuv's thread pool: the commit record is then on disk, as FULL would have it
 * (docs/decisions/0002-configuration-and-storage.md). Commits that finish while a sync runs share
 * the next one (group commit); a caller never waits on a sync that began before its commit.
 */
export interface WalSync {
  /** Resolves once everything committed before this call is on disk. */
  sync(): Promise<void>;
  close(): Promise<void>;
}

export function createWalSync(databaseFile: string): WalSync {
  const walFile = `${databaseFile}-wal`;
  let handle: { fh: FileHandle; ino: number } | null = null;
  let running: Promise<void> | null = null;
  let next: Promise<void> | null = null;
  let closed = false;

  /** The -wal file as it is now: reopened when SQLite replaced it (a new inode). */
  async function current(): Promise<FileHandle | null> {
    // A stat of a cached inode costs microseconds: done in place, it does not queue on the thread
    // pool behind other work (RS256 signatures), so the datasync below is queued at once.
    const st = statSync(walFile, { throwIfNoEntry: false });
    if (!st) return null; // nothing written in WAL mode yet
    if (handle?.ino !== st.ino) {
      await handle?.fh.close();
      handle = { fh: await open(walFile, 'r'), ino: st.ino };
    }
    return handle.fh;
  }

  async function once(): Promise<void> {
    await (await current())?.datasync();
  }

  function sync(): Promise<void> {
    if (closed) return Promise.resolve(); // the database is closed: nothing more can commit
    if (!running) {
      running = once().finally(() => {
        running = null;
      });
      return running;
    }
    // A sync is under way, but it may have started before this caller's commit: wait for it,
    // then for one more, shared by everyone who arrives meanwhile.
    next ??= running
      .catch(() => undefined)
      .then(() => {
        next = null;
        return sync();
      });
    return next;
  }

  return {
    sync,
    async close() {
      await running?.catch(() => undefined);
      await next?.catch(() => undefined);
      closed = true;
      await handle?.fh.close();
      handle = null;
    },
  };
}
