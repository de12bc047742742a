import { sql } from 'kysely';
import type { Db } from '../db/index.js';

/** Adds increments to the stored cumulative counters (one row per counter). */
export async function addCounters(
  db: Db,
  deltas: Readonly<Record<string, number>>,
  at: string,
): Promise<void> {
  const rows = Object.entries(deltas).map(([name, value]) => ({ name, value, updated_at: at }));
  if (rows.length === 0) return;
  await db
    .insertInto('radius_counters')
    .values(rows)
    .onConflict((oc) =>
      oc.column('name').doUpdateSet({
        value: sql<number>`radius_counters.value + excluded.value`,
        updated_at: (eb) => eb.ref('excluded.updated_at'),
      }),
    )
    .execute();
}

export function selectCounters(db: Db): Promise<{ name: string; value: number; updated_at: string }[]> {
  return db.selectFrom('radius_counters').selectAll().orderBy('name').execute();
}
