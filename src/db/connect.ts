import Database from 'better-sqlite3';
import { CompiledQuery, Kysely, SqliteDialect, SqliteDriver, type DatabaseConnection } from 'kysely';
import type { DB } from './schema.js';

export type Db = Kysely<DB>;

const STATEMENT_CACHE_SIZE = 500;

/**
 * kysely's SQLite driver prepares every query afresh. This wrapper keeps the most recently used
 * prepared statements, so hot paths (token grants, RADIUS authorization) skip SQLite's parser.
 */
function withStatementCache(sqlite: Database.Database): {
  close(): void;
  prepare(sql: string): Database.Statement;
} {
  const cache = new Map<string, Database.Statement>();
  return {
    close: () => {
      cache.clear();
      sqlite.close();
    },
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
      return stmt;
    },
  };
}

/**
 * Transactions start with BEGIN IMMEDIATE: the write lock is taken up front, so a transaction
 * that reads and then writes waits on busy_timeout instead of failing with SQLITE_BUSY when the
 * CLI and the daemon write at the same time.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  readonly #database: ReturnType<typeof withStatementCache>;
  constructor(database: ReturnType<typeof withStatementCache>) {
    super({ database });
    this.#database = database;
  }
  override createDriver(): SqliteDriver {
    return new ImmediateSqliteDriver({ database: this.#database });
  }
}

export interface OpenedDatabase {
  db: Db;
  /** The raw handle, for SQLite-only maintenance (backup, probes); domain code never touches it. */
  sqlite: Database.Database;
}

/** Opens the SQLite database with the pragmas the daemon relies on. */
export function openDatabase(file: string): OpenedDatabase {
  const sqlite = new Database(file);
  sqlite.pragma('journal_mode = WAL');
  // FULL: an acknowledged commit survives power loss, not only a process crash.
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  const db = new Kysely<DB>({ dialect: new ImmediateSqliteDialect(withStatementCache(sqlite)) });
  return { db, sqlite };
}
