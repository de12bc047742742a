import { readFileSync } from 'node:fs';
import path from 'node:path';
import { SqliteAdapter, sql } from 'kysely';
import { packageRoot } from '../lib/paths.js';
import type { Db } from './connect.js';

/**
 * The schema snapshot (docs/decisions/0049-schema-snapshot.md): `npm run build` migrates an empty
 * SQLite database with every migration and writes what they made (scripts/bundle.mjs). A new
 * box's first start then creates its database from it in one transaction, instead of importing
 * 35 migration modules and running them statement by statement: the same tables, indexes and
 * rows (test/db/schema-snapshot.test.ts compares the two), in a fraction of the time.
 *
 * Only the bundle has one: the build defines HOTSPOT_SCHEMA_SNAPSHOT (its path from the package
 * root). dist/src and the tests run the migrations themselves, so an edited migration can never
 * be hidden by an older snapshot; the snapshot is also refused unless it lists exactly the
 * migrations this code has. PostgreSQL always runs the migrations: a central database is made
 * once, and its first start is not the small box's.
 */

declare const HOTSPOT_SCHEMA_SNAPSHOT: string | undefined;

/** Stands for the time the snapshot is applied, where a migration wrote its own time. */
export const NOW_MARK = '\u0000now';

interface Snapshot {
  /** The migrations it holds the result of, in order. */
  migrations: string[];
  /** CREATE statements: tables, then indexes. */
  schema: string[];
  rows: { table: string; columns: string[]; values: unknown[][] }[];
}

function load(): Snapshot | null {
  if (typeof HOTSPOT_SCHEMA_SNAPSHOT !== 'string') return null;
  try {
    return JSON.parse(readFileSync(path.join(packageRoot(), HOTSPOT_SCHEMA_SNAPSHOT), 'utf8')) as Snapshot;
  } catch {
    return null; // no snapshot shipped: the migrations run
  }
}

/**
 * Creates a new, empty SQLite database from the snapshot; false (nothing done) when there is no
 * usable snapshot, the database is not SQLite or not empty. `migrations` are this code's.
 */
export async function createFromSnapshot(db: Db, migrations: readonly string[], now: Date): Promise<boolean> {
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return false;
  const snapshot = load();
  if (!snapshot || snapshot.migrations.join('\n') !== migrations.join('\n')) return false;
  const stamp = now.toISOString();
  return db.transaction().execute(async (tx) => {
    // Checked inside the write transaction: another process cannot create tables in between.
    const { rows } = await sql<{ n: number }>`select count(*) as n from sqlite_master`.execute(tx);
    if ((rows[0]?.n ?? 1) !== 0) return false;
    for (const statement of snapshot.schema) await sql.raw(statement).execute(tx);
    for (const { table, columns, values } of snapshot.rows) {
      for (const row of values) {
        const cells = row.map((v) => (v === NOW_MARK ? stamp : v));
        await sql`insert into ${sql.table(table)} (${sql.join(columns.map((c) => sql.ref(c)))}) values (${sql.join(cells)})`.execute(
          tx,
        );
      }
    }
    return true;
  });
}
