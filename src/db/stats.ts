import { sql } from 'kysely';
import type { Db } from './connect.js';
import type { DB } from './schema.js';

/** Row counts of the given tables (for `hotspot-ctl status`); a table not created yet counts null. */
export async function rowCounts<T extends keyof DB>(
  db: Db,
  tables: readonly T[],
): Promise<Record<T, number | null>> {
  const out = {} as Record<T, number | null>;
  for (const table of tables) {
    try {
      const { rows } = await sql<{
        n: number | string;
      }>`select count(*) as n from ${sql.table(table)}`.execute(db);
      out[table] = Number(rows[0]?.n ?? 0);
    } catch {
      out[table] = null;
    }
  }
  return out;
}
