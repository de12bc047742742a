import { CompiledQuery, type Compilable } from 'kysely';
import { idleReadStatement, type Db } from './connect.js';

/**
 * A query built and compiled once, then run with new parameter values. Hot paths (RADIUS
 * authorization and accounting) skip kysely's query building and compiling this way; the
 * statement cache in connect.ts already skips SQLite's parser. `build` gets one marker per
 * argument and puts each where its value goes (markers may repeat); any other value it uses is a
 * constant of the query. The first run fixes the SQL for the process's dialect. A query that only
 * reads, run on the database itself (not a transaction) while nothing else uses the connection,
 * runs synchronously (connect.ts `idleReadStatement`).
 */
export function prepared<A extends unknown[], R>(
  build: (db: Db, ...args: A) => Compilable<R>,
  markers: A,
): (db: Db, ...args: A) => Promise<R[]> {
  let plan: { sql: string; slots: ({ arg: number } | { value: unknown })[] } | undefined;
  return async (db, ...args) => {
    if (!plan) {
      const compiled = build(db, ...markers).compile();
      plan = {
        sql: compiled.sql,
        slots: compiled.parameters.map((p) => {
          const arg = markers.indexOf(p);
          return arg >= 0 ? { arg } : { value: p };
        }),
      };
    }
    const parameters = plan.slots.map((s) => ('arg' in s ? args[s.arg] : s.value));
    const read = idleReadStatement(db, plan.sql);
    if (read) return read.all(parameters) as R[];
    return (await db.executeQuery<R>(CompiledQuery.raw(plan.sql, parameters))).rows;
  };
}

/** Distinct placeholder values for `prepared` (never valid data). */
export const marker = (name: string): string => `\u0000marker:${name}`;
