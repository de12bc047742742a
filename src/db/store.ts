import path from 'node:path';
import type Database from 'better-sqlite3';
import { openDatabase, registerFeed, type Db } from './connect.js';
import type { CheckpointOptions } from './checkpoint.js';
import { ConfigError } from '../config/load.js';
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

/** Where a DATABASE_URL points, without the password it may hold: `PostgreSQL host:port/db`. */
export function postgresWhere(url: string): string {
  const parsed = new URL(url);
  return `PostgreSQL ${parsed.host}${parsed.pathname}`;
}

/**
 * The PostgreSQL server DATABASE_URL names could not be reached or refused us: one line naming
 * the setting (serve stops with it, setup refuses with it), never the password.
 */
export class DatabaseUnreachable extends ConfigError {
  constructor(
    readonly where: string,
    readonly reason: string,
  ) {
    super([`DATABASE_URL: cannot connect to ${where}: ${reason}`]);
  }
}

/** Opens the configured store (migrations are the caller's). */
export async function openStore(
  config: StoreConfig,
  options: {
    now: () => Date;
    onListenError?: (err: unknown) => void;
    poolSize?: number;
    /** SQLite, a daemon's connection: WAL checkpoints on a thread (checkpoint.ts). */
    checkpoints?: CheckpointOptions;
  },
): Promise<Store> {
  if (config.databaseUrl) {
    const { openPostgres } = await postgres();
    const url = config.databaseUrl;
    const opened = await openPostgres(url, options).catch((err: unknown) => {
      throw new DatabaseUnreachable(postgresWhere(url), err instanceof Error ? err.message : String(err));
    });
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
  const { db, sqlite } = openDatabase(
    path.join(config.dataDir, DATABASE_FILE),
    options.checkpoints ? { checkpoints: options.checkpoints } : {},
  );
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
