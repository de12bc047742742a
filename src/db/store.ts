import path from 'node:path';
import type Database from 'better-sqlite3';
import { openDatabase, registerFeed, type Db } from './connect.js';
import { lazy } from '../lib/lazy.js';
import type { ChangeFeed } from './postgres.js';

/** pg and the PostgreSQL side of the store, loaded only when DATABASE_URL names one: bench/footprint.ts. */
const postgres = lazy('the PostgreSQL store (pg)', () => import('./postgres.js'));

/** The SQLite file inside the data directory. */
export const DATABASE_FILE = 'hotspot.db';

/**
 * The store the daemon and the CLI run on: SQLite in the data directory (the default), or the
 * PostgreSQL database DATABASE_URL names (DESIGN.md §4.9). Domain code only sees `db`.
 */
export type Store =
  | {
      kind: 'sqlite';
      db: Db;
      /** The raw handle, for SQLite-only maintenance (backup, probes). */
      sqlite: Database.Database;
      feed: null;
      exclusive: Exclusive;
      close(): Promise<void>;
    }
  | {
      kind: 'postgres';
      db: Db;
      sqlite: null;
      feed: ChangeFeed;
      exclusive: Exclusive;
      close(): Promise<void>;
    };

/**
 * Runs a scheduled job's `work` unless another daemon is running it or already ran it for the
 * same schedule `tick` (postgres.ts); true when it ran.
 */
export type Exclusive = (name: string, work: () => Promise<void>, tick?: string) => Promise<boolean>;

export interface StoreConfig {
  dataDir: string;
  databaseUrl: string | null;
}

/** Opens the configured store (migrations are the caller's). */
export async function openStore(
  config: StoreConfig,
  options: { now: () => Date; onListenError?: (err: unknown) => void; poolSize?: number },
): Promise<Store> {
  if (config.databaseUrl) {
    const { openPostgres } = await postgres();
    const opened = await openPostgres(config.databaseUrl, options);
    registerFeed(opened.db, opened.feed);
    return {
      kind: 'postgres',
      db: opened.db,
      sqlite: null,
      feed: opened.feed,
      exclusive: (name, work, tick) => opened.exclusive(name, work, tick),
      async close() {
        await opened.close();
        await opened.db.destroy();
      },
    };
  }
  const { db, sqlite } = openDatabase(path.join(config.dataDir, DATABASE_FILE));
  return {
    kind: 'sqlite',
    db,
    sqlite,
    feed: null,
    // One daemon per SQLite file: its jobs are the only ones.
    exclusive: async (_name, work) => {
      await work();
      return true;
    },
    close: () => db.destroy(),
  };
}
