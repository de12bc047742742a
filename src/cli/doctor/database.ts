import path from 'node:path';
import type { Config } from '../../config/index.js';
import type { MigrationState } from '../../db/migrate.js';
import { DATABASE_FILE, DatabaseUnreachable, postgresWhere } from '../../db/index.js';
import type { Check } from './checks.js';

/**
 * The database line of `hotspot-ctl doctor`: whether it opens, and whether its schema is this
 * version's. The routers' lines read the database too, so when it does not open (PostgreSQL down
 * or unreachable, a wrong password, a vault key that does not open it, a corrupt file) doctor
 * still prints every other line and says why, instead of ending on one error line, and an
 * unreachable server costs at most DATABASE_TIMEOUT_MS rather than the system's TCP timeout.
 */

export const DATABASE_TIMEOUT_MS = 10_000;

/** Where the data is, without the password a DATABASE_URL may hold. */
export function databaseWhere(config: Config): string {
  if (!config.databaseUrl) return `SQLite ${path.join(config.dataDir, DATABASE_FILE)}`;
  return postgresWhere(config.databaseUrl);
}

export function databaseOpened(config: Config, state: MigrationState): Check {
  const where = databaseWhere(config);
  const applied = `${String(state.applied.length)} migrations applied`;
  if (state.pending.length === 0) return { name: 'database', status: 'ok', detail: `${where}, ${applied}` };
  return {
    name: 'database',
    status: 'warn',
    detail: `${where}, ${applied}, ${String(state.pending.length)} pending`,
    fix: 'apply them: hotspot-ctl migrate (the daemon does at start)',
  };
}

export function databaseFailed(config: Config, err: unknown): Check {
  const where = databaseWhere(config);
  const reason =
    err instanceof DatabaseUnreachable ? err.reason : err instanceof Error ? err.message : String(err);
  return {
    name: 'database',
    status: 'fail',
    detail: `${where}: ${reason}`,
    fix: config.databaseUrl
      ? 'check that PostgreSQL runs and this box reaches it, and the user, password and database in DATABASE_URL'
      : 'check HOTSPOT_DATA_DIR and that this user may read it; a damaged file: hotspot-ctl restore the latest backup',
  };
}

/** `work`, or a rejection after `ms` (the work itself is left behind: doctor exits when done). */
export function withinTime<T>(work: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer in ${String(ms / 1000)} s`)), ms);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}
