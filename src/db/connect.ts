import { chmodSync, closeSync, openSync } from 'node:fs';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect, SqliteDriver, type DatabaseConnection } from 'kysely';
import type { DB } from './schema.js';
import type { ChangeFeed } from './postgres.js';
import { namesIn } from './sql-names.js';
import { createWalSync, type WalSync } from './wal-sync.js';
import {
  createCheckpointer,
  SAFETY_NET_PAGES,
  SQLITE_CHECKPOINT_PAGES,
  type Checkpointer,
  type CheckpointOptions,
} from './checkpoint.js';

export type Db = Kysely<DB>;

const STATEMENT_CACHE_SIZE = 500;
/** How long a write waits for another connection's write lock before it fails (SQLITE_BUSY). */
const BUSY_TIMEOUT_MS = 5_000;

/**
 * kysely's SQLite driver prepares every query afresh. This wrapper keeps the most recently used
 * prepared statements, so hot paths (token grants, RADIUS authorization) skip SQLite's parser.
 */
interface CachedDatabase {
  close(): void;
  /** The cached statement for `sql`, as kysely gets it before running it. */
  prepare(sql: string): Database.Statement;
  /** The cached statement for `sql`, without counting it as run (it may not be). */
  statement(sql: string): Database.Statement;
  /** Whether a statement that may write ran since the last call (and forget it). */
  takeWritten(): boolean;
  /**
   * A number that moves whenever a statement that may write and names one of `tables` runs on
   * this connection, or another connection (the CLI) commits anything; see `idleChangeVersion`.
   */
  changeVersion(tables: readonly string[]): number;
  /**
   * BEGIN IMMEDIATE if the write lock is free now; false when another connection holds it (the
   * caller waits with timers, not in SQLite's busy handler, which sleeps the whole thread).
   */
  tryBeginImmediate(): boolean;
  /**
   * Queries holding or waiting for the connection through kysely (the driver counts them). At
   * zero, a synchronous statement runs exactly where a queued one would: after everything
   * before it, with nothing in between.
   */
  users: number;
  /** Whether a transaction is open on the connection (SQLite may have rolled one back on an error). */
  readonly inTransaction: boolean;
}

/** Distinct write statements whose names are remembered; past this the memo starts afresh. */
const WRITE_NAMES_MEMO_SIZE = 1_000;

function withStatementCache(sqlite: Database.Database): CachedDatabase {
  const cache = new Map<string, Database.Statement>();
  let written = false;
  /** Tables some cached read depends on, and their writes, counted when a statement that may write is about to run. */
  const writes = new Map<string, number>();
  /** Per write statement, the watched tables it names. */
  const writeNames = new Map<string, readonly string[]>();
  const noteWrite = (sql: string): void => {
    let names = writeNames.get(sql);
    if (!names) {
      names = namesIn(sql).filter((name) => writes.has(name));
      if (writeNames.size >= WRITE_NAMES_MEMO_SIZE) writeNames.clear();
      writeNames.set(sql, names);
    }
    for (const name of names) writes.set(name, (writes.get(name) ?? 0) + 1);
  };
  /** From now on, writes naming `table` are counted (none before matter: nothing was cached for it). */
  const watch = (table: string): void => {
    writes.set(table, 0);
    writeNames.clear(); // its entries were computed without this table
  };
  // SQLite's own counter of commits by other connections (https://sqlite.org/pragma.html#pragma_data_version).
  const dataVersion = sqlite.prepare('pragma data_version').pluck();
  let seenDataVersion: unknown = dataVersion.get();
  let foreignCommits = 0;
  /** data_version was read in this turn of the event loop (see changeVersion). */
  let readThisTurn = false;
  const turnEnded = (): void => {
    readThisTurn = false;
  };
  const statement = (sql: string): Database.Statement => {
    let stmt = cache.get(sql);
    if (stmt) {
      cache.delete(sql); // re-insert to keep the map in least-recently-used order
    } else {
      stmt = sqlite.prepare(sql);
      if (cache.size >= STATEMENT_CACHE_SIZE) {
        const oldest = cache.keys().next();
        if (!oldest.done) cache.delete(oldest.value);
      }
    }
    cache.set(sql, stmt);
    return stmt;
  };
  const begin = sqlite.prepare('begin immediate');
  return {
    users: 0,
    get inTransaction() {
      return sqlite.inTransaction;
    },
    tryBeginImmediate() {
      // SQLite applies PRAGMA busy_timeout when it compiles the statement: run afresh each time.
      sqlite.pragma('busy_timeout = 0');
      try {
        begin.run();
        return true;
      } catch (err) {
        if ((err as { code?: unknown }).code === 'SQLITE_BUSY') return false;
        throw err;
      } finally {
        sqlite.pragma(`busy_timeout = ${String(BUSY_TIMEOUT_MS)}`);
      }
    },
    close: () => {
      cache.clear();
      sqlite.close();
    },
    takeWritten() {
      const was = written;
      written = false;
      return was;
    },
    // kysely prepares each statement right before it runs it.
    prepare(sql: string) {
      const stmt = statement(sql);
      if (!stmt.readonly) {
        written = true;
        noteWrite(sql);
      }
      return stmt;
    },
    statement,
    changeVersion(tables) {
      // Read once per turn of the event loop: it takes the WAL read lock (two fcntl calls), and a
      // login asks four times (its router, grant, usage and plan), the datagrams read in one turn
      // more. A commit by another process (the CLI's revocation) is seen by everything that runs
      // in a later turn than it, so by the login a router sends after it (even one the
      // revocation's disconnect caused) unless that datagram is read in the same turn as one
      // read before the commit: then it is answered as if it had come just before the commit,
      // and its Accounting Start brings the Disconnect-Request (sessions.ts `ofEndedGrant`).
      if (!readThisTurn) {
        readThisTurn = true;
        setImmediate(turnEnded);
        const now = dataVersion.get();
        if (now !== seenDataVersion) {
          seenDataVersion = now;
          foreignCommits++;
        }
      }
      // Every term only grows, so the sum is unchanged exactly when none of them moved.
      let version = foreignCommits;
      for (const table of tables) {
        const count = writes.get(table);
        if (count === undefined) watch(table);
        else version += count;
      }
      return version;
    },
  };
}

/** The statement cache of each database opened here, by its Kysely instance (not its transactions). */
const opened = new WeakMap<Db, CachedDatabase>();

/**
 * For the hot reads of `prepared` (RADIUS authorization, bearer checks): the cached statement for
 * `sql`, to run synchronously, when `db` is a database opened here (not a transaction), `sql`
 * only reads, and no query holds or waits for the connection, so the result is the one the
 * queue would give, without its promise round trips. Null otherwise: go through kysely.
 */
export function idleReadStatement(db: Db, sql: string): Database.Statement | null {
  const cached = opened.get(db);
  if (!cached || cached.users > 0) return null;
  const stmt = cached.statement(sql);
  return stmt.readonly ? stmt : null;
}

/**
 * For reads cached between writes (`prepared` with `cacheUntilWritten`): a version of what
 * `tables` hold, to run right before an idle read (see `idleReadStatement`; null when the
 * connection is not idle, or `db` is not a database opened here). It moves when a statement
 * that may write and names one of `tables` (or anything after a cascade: list those tables
 * too) runs on this connection, and when another connection commits anything. A result read
 * at version v is what the database still holds while the version is v. `tables` are lower-case.
 */
export function idleChangeVersion(db: Db, tables: readonly string[]): number | null {
  const cached = opened.get(db);
  if (!cached || cached.users > 0) return null;
  return cached.changeVersion(tables);
}

/** Runs one statement synchronously inside `idleWriteTransaction`: a read's rows, or none. */
export type SyncExec = (sql: string, parameters: readonly unknown[]) => unknown[];

/** The WAL sync of each database opened here, for `idleWriteTransaction`. */
const walSyncs = new WeakMap<Db, WalSync>();

/**
 * For the hottest writes (the common Interim-Update, wifi/sessions.ts): runs `fn` in one write
 * transaction synchronously, with its statements straight on the connection, when `db` is a
 * SQLite database opened here (not a transaction), no query holds or waits for the connection,
 * and the write lock is free now. The transaction then runs exactly where a queued one would:
 * after everything before it, with nothing in between. Null when any of that does not hold, and
 * `fn` did not run: go through kysely. When `fn` throws, the transaction is rolled back and the
 * error thrown on. `durable` resolves once the commit is on disk (wal-sync.ts): nothing it wrote
 * may be acknowledged before.
 */
export function idleWriteTransaction<T>(
  db: Db,
  fn: (exec: SyncExec) => T,
): { result: T; durable: Promise<void> } | null {
  const cached = opened.get(db);
  const wal = walSyncs.get(db);
  if (!cached || !wal || cached.users > 0 || !cached.tryBeginImmediate()) return null;
  let result: T;
  try {
    result = fn((sql, parameters) => {
      const stmt = cached.prepare(sql);
      if (stmt.reader) return stmt.all(parameters);
      stmt.run(parameters);
      return [];
    });
    cached.statement('commit').run();
  } catch (err) {
    if (cached.inTransaction) cached.statement('rollback').run();
    cached.takeWritten();
    throw err;
  }
  return { result, durable: cached.takeWritten() ? wal.sync() : Promise.resolve() };
}

/** The change feed of each PostgreSQL database opened by store.ts. */
const feeds = new WeakMap<Db, ChangeFeed>();

export function registerFeed(db: Db, feed: ChangeFeed): void {
  feeds.set(db, feed);
}

/**
 * For reads cached between writes: a version of what `tables` (lower-case) hold, to take right
 * before the read. SQLite: `idleChangeVersion` (null unless the connection is idle). PostgreSQL:
 * the change feed's version, which moves once this process committed a write naming one of the
 * tables, or another process's commit to one was notified; null while the feed is down.
 */
export function changeVersion(db: Db, tables: readonly string[]): number | null {
  const feed = feeds.get(db);
  return feed ? feed.version(tables) : idleChangeVersion(db, tables);
}

/**
 * For caches kept by time (a TTL) that must also hear of other daemons' writes at once: the
 * change feed's version of `tables` on PostgreSQL; null on SQLite (one daemon: the TTL alone
 * serves, as it always has) and while the feed is down.
 */
export function sharedChangeVersion(db: Db, tables: readonly string[]): number | null {
  return feeds.get(db)?.version(tables) ?? null;
}

/**
 * For caches kept by time that read through the query queue (the signing keys) and must hear of
 * any process's commit at once, the CLI's too: the change feed's version on PostgreSQL (null
 * while it is down), and on SQLite the connection's change version, taken even while the
 * connection is busy: a read queued after it sees at least what the version stands for, and a
 * commit after it moves the version again. Null for a database not opened here.
 */
export function committedChangeVersion(db: Db, tables: readonly string[]): number | null {
  const feed = feeds.get(db);
  if (feed) return feed.version(tables);
  return opened.get(db)?.changeVersion(tables) ?? null;
}

/**
 * Transactions start with BEGIN IMMEDIATE: the write lock is taken up front, so a transaction
 * that reads and then writes waits on busy_timeout instead of failing with SQLITE_BUSY when the
 * CLI and the daemon write at the same time.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  readonly #database: CachedDatabase;
  readonly #wal: WalSync;
  readonly #checkpointer: Checkpointer | null;

  constructor(database: CachedDatabase, wal: WalSync, checkpointer: Checkpointer | null) {
    super({ database });
    this.#database = database;
    this.#wal = wal;
    this.#checkpointer = checkpointer;
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    this.#database.users++;
    return super.acquireConnection();
  }

  /**
   * Waits for the write lock with timers while another process holds it (a RADIUS worker's
   * accounting batch, the CLI): SQLite's own busy handler would sleep the thread, and every request
   * of this process with it. Gives up after busy_timeout, as SQLite would.
   */
  override async beginTransaction(): Promise<void> {
    const deadline = performance.now() + BUSY_TIMEOUT_MS;
    for (let waitMs = 1; !this.#database.tryBeginImmediate(); waitMs = Math.min(waitMs * 2, 2)) {
      if (performance.now() > deadline)
        throw Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
  }

  /**
   * After a query or transaction that wrote, the connection is handed on at once and the caller
   * waits for the WAL sync (wal-sync.ts): a write is acknowledged only once it is on disk, and
   * nobody else waits for the disk meanwhile.
   */
  override async releaseConnection(): Promise<void> {
    const written = this.#database.takeWritten();
    this.#database.users--;
    await super.releaseConnection();
    if (written) await this.#wal.sync();
  }

  override async destroy(): Promise<void> {
    // The checkpoint thread's connection first: the daemon's is then the last one, and SQLite
    // checkpoints and removes the WAL when it closes.
    await this.#checkpointer?.close();
    await super.destroy();
    await this.#wal.close();
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  readonly #database: CachedDatabase;
  readonly #wal: WalSync;
  readonly #checkpointer: Checkpointer | null;
  constructor(database: CachedDatabase, wal: WalSync, checkpointer: Checkpointer | null) {
    super({ database });
    this.#database = database;
    this.#wal = wal;
    this.#checkpointer = checkpointer;
  }
  override createDriver(): SqliteDriver {
    return new ImmediateSqliteDriver(this.#database, this.#wal, this.#checkpointer);
  }
}

/**
 * The database holds what the keys do (sessions, tokens, guests' numbers): mode 0600 like them.
 * SQLite creates a database with 0644 (less the umask) and gives the -wal and -shm it creates the
 * database file's mode, so the file is made 0600 before SQLite opens it; one an older version
 * made 0644 is tightened here, with its -wal and -shm.
 */
function ownerOnly(file: string): void {
  closeSync(openSync(file, 'a', 0o600));
  for (const f of [file, `${file}-wal`, `${file}-shm`]) {
    try {
      chmodSync(f, 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
}

/** The file of each SQLite database opened here. */
const files = new WeakMap<Db, string>();

/**
 * The SQLite file `db` was opened on (null: PostgreSQL, or a database not opened here): long
 * reads open their own connection to it off the event loop (wifi/reports.run.ts).
 */
export const databaseFile = (db: Db): string | null => files.get(db) ?? null;

export interface OpenedDatabase {
  db: Db;
  /** The raw handle, for SQLite-only maintenance (backup, probes); domain code never touches it. */
  sqlite: Database.Database;
}

export interface OpenOptions {
  /** Replaces the WAL sync (tests). */
  wal?: WalSync;
  /**
   * A daemon's connection: WAL checkpoints run on a thread rather than inside a commit on the
   * event loop (checkpoint.ts). The CLI's short runs keep SQLite's own.
   */
  checkpoints?: CheckpointOptions;
}

/**
 * A daemon connection's checkpoints on a thread (checkpoint.ts): SQLite's own only at the safety
 * net while the thread works, and as often as they were by default once it has failed (at the
 * safety net each one would copy ten times as much inside a commit).
 */
function daemonCheckpoints(
  sqlite: Database.Database,
  file: string,
  options: CheckpointOptions,
): Checkpointer {
  sqlite.pragma(`wal_autocheckpoint = ${String(SAFETY_NET_PAGES)}`);
  return createCheckpointer(file, {
    ...options,
    onError: (err) => {
      if (sqlite.open) sqlite.pragma(`wal_autocheckpoint = ${String(SQLITE_CHECKPOINT_PAGES)}`);
      options.onError?.(err);
    },
  });
}

/**
 * SQLite's own lower() folds ASCII letters only, PostgreSQL's every letter: the admin lists'
 * search (`lower(column) like …`, list-filter.store.ts) found "CAFÉ" on PostgreSQL and not on
 * SQLite. This connection's lower() is JavaScript's default Unicode case mapping instead, as
 * PostgreSQL's is under a UTF-8 locale. No index is built on lower() (an index on an
 * application-defined function would need it on every connection that writes).
 */
function unicodeLower(sqlite: Database.Database): void {
  // What SQLite hands a function: text, a number (bigint with safe integers), a blob, or NULL.
  sqlite.function('lower', { deterministic: true }, (value: string | number | bigint | Buffer | null) => {
    if (value === null) return null;
    if (typeof value === 'string') return value.toLowerCase();
    if (Buffer.isBuffer(value)) return value.toString('utf8').toLowerCase();
    return String(value); // a number: its text, as SQLite's lower() gives it
  });
}

/**
 * Opens the SQLite database with the pragmas the daemon relies on. WAL with synchronous=NORMAL:
 * SQLite does not fsync at commit, the driver does it off the event loop before it lets a writer
 * go on (see wal-sync.ts), so an acknowledged commit survives power loss as under FULL.
 */
export function openDatabase(file: string, options: OpenOptions = {}): OpenedDatabase {
  ownerOnly(file);
  const sqlite = new Database(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma(`busy_timeout = ${String(BUSY_TIMEOUT_MS)}`);
  unicodeLower(sqlite);
  const synced = options.wal ?? createWalSync(file);
  const checkpointer = options.checkpoints ? daemonCheckpoints(sqlite, file, options.checkpoints) : null;
  // Every sync follows a commit that wrote: the checkpointer counts them.
  const wal: WalSync = checkpointer
    ? {
        sync: () => {
          checkpointer.committed();
          return synced.sync();
        },
        close: () => synced.close(),
      }
    : synced;
  const cached = withStatementCache(sqlite);
  const db = new Kysely<DB>({ dialect: new ImmediateSqliteDialect(cached, wal, checkpointer) });
  opened.set(db, cached);
  walSyncs.set(db, wal);
  files.set(db, file);
  return { db, sqlite };
}
