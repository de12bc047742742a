import Database from 'better-sqlite3';
import { CompiledQuery, Kysely, SqliteDialect, SqliteDriver, type DatabaseConnection } from 'kysely';
import type { DB } from './schema.js';
import { createWalSync, type WalSync } from './wal-sync.js';

export type Db = Kysely<DB>;

const STATEMENT_CACHE_SIZE = 500;

/**
 * kysely's SQLite driver prepares every query afresh. This wrapper keeps the most recently used
 * prepared statements, so hot paths (token grants, RADIUS authorization) skip SQLite's parser.
 */
interface CachedDatabase {
  close(): void;
  /** A read-only statement on the reader connection (below), or null when `sql` may write. */
  readStatement(sql: string): Database.Statement | null;
  prepare(sql: string): Database.Statement;
  /** Whether a statement that may write ran since the last call (and forget it). */
  takeWritten(): boolean;
}

function withStatementCache(sqlite: Database.Database, file: string): CachedDatabase {
  const cache = new Map<string, Database.Statement>();
  const reads = new Map<string, Database.Statement | null>();
  let reader: Database.Database | null = null;
  let written = false;
  return {
    close: () => {
      cache.clear();
      reads.clear();
      reader?.close();
      sqlite.close();
    },
    readStatement(sql: string) {
      let stmt = reads.get(sql);
      if (stmt === undefined) {
        reader ??= openReader(file);
        const candidate = reader.prepare(sql);
        stmt = candidate.readonly ? candidate : null;
        reads.set(sql, stmt);
      }
      return stmt;
    },
    takeWritten() {
      const was = written;
      written = false;
      return was;
    },
    // kysely prepares each statement right before it runs it.
    prepare(sql: string) {
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
      if (!stmt.readonly) written = true;
      return stmt;
    },
  };
}

/**
 * A second, read-only connection for the hot reads of `prepared` (RADIUS authorization, bearer
 * checks): run synchronously on it, they skip kysely's connection queue and never wait behind a
 * transaction that holds the main connection across awaits. WAL gives it the last committed
 * state, as a query on the main connection after that transaction would see.
 */
function openReader(file: string): Database.Database {
  const reader = new Database(file, { readonly: true, fileMustExist: true });
  reader.pragma('busy_timeout = 5000');
  return reader;
}

/** The reader side of each database opened here, by its Kysely instance (not its transactions). */
const readSides = new WeakMap<Db, CachedDatabase>();

/**
 * The read-only statement for `sql` when `db` is a database opened here (not a transaction, whose
 * reads must see its own writes) and `sql` does not write; null otherwise.
 */
export function readStatement(db: Db, sql: string): Database.Statement | null {
  return readSides.get(db)?.readStatement(sql) ?? null;
}

/**
 * Transactions start with BEGIN IMMEDIATE: the write lock is taken up front, so a transaction
 * that reads and then writes waits on busy_timeout instead of failing with SQLITE_BUSY when the
 * CLI and the daemon write at the same time.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  readonly #database: CachedDatabase;
  readonly #wal: WalSync;

  constructor(database: CachedDatabase, wal: WalSync) {
    super({ database });
    this.#database = database;
    this.#wal = wal;
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  /**
   * After a query or transaction that wrote, the connection is handed on at once and the caller
   * waits for the WAL sync (wal-sync.ts): a write is acknowledged only once it is on disk, and
   * nobody else waits for the disk meanwhile.
   */
  override async releaseConnection(): Promise<void> {
    const written = this.#database.takeWritten();
    await super.releaseConnection();
    if (written) await this.#wal.sync();
  }

  override async destroy(): Promise<void> {
    await super.destroy();
    await this.#wal.close();
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  readonly #database: CachedDatabase;
  readonly #wal: WalSync;
  constructor(database: CachedDatabase, wal: WalSync) {
    super({ database });
    this.#database = database;
    this.#wal = wal;
  }
  override createDriver(): SqliteDriver {
    return new ImmediateSqliteDriver(this.#database, this.#wal);
  }
}

export interface OpenedDatabase {
  db: Db;
  /** The raw handle, for SQLite-only maintenance (backup, probes); domain code never touches it. */
  sqlite: Database.Database;
}

/**
 * Opens the SQLite database with the pragmas the daemon relies on. WAL with synchronous=NORMAL:
 * SQLite does not fsync at commit, the driver does it off the event loop before it lets a writer
 * go on (see wal-sync.ts), so an acknowledged commit survives power loss as under FULL. `wal`
 * replaces that sync (tests).
 */
export function openDatabase(file: string, options: { wal?: WalSync } = {}): OpenedDatabase {
  const sqlite = new Database(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  const wal = options.wal ?? createWalSync(file);
  const cached = withStatementCache(sqlite, file);
  const db = new Kysely<DB>({ dialect: new ImmediateSqliteDialect(cached, wal) });
  readSides.set(db, cached);
  return { db, sqlite };
}
