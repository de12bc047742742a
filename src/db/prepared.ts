import { CompiledQuery, type Compilable } from 'kysely';
import { changeVersion, idleReadStatement, type Db, type SyncExec } from './connect.js';

export interface PreparedOptions {
  /**
   * Keep each result, by argument values, until a write may have changed it (connect.ts
   * `changeVersion`). SQLite: a statement that may write and names one of these tables runs on
   * this connection, or another connection commits; only synchronous (idle) reads are cached.
   * PostgreSQL: this process commits a write naming one of them, or another daemon's commit to
   * one is notified (postgres.ts ChangeFeed). List every table whose writes can change the
   * result, including tables whose deletes cascade into it. The rows returned are shared and
   * frozen.
   */
  cacheUntilWritten?: { tables: readonly string[]; maxEntries: number };
}

/** Where a compiled query's parameter comes from: an argument, or a constant of the query. */
type Slot = { arg: number } | { value: unknown };

interface Cached {
  version: number;
  rows: readonly unknown[];
}

/**
 * A query built and compiled once, then run with new parameter values. Hot paths (RADIUS
 * authorization and accounting) skip kysely's query building and compiling this way; the
 * statement cache in connect.ts already skips SQLite's parser. `build` gets one marker per
 * argument and puts each where its value goes (markers may repeat); any other value it uses is a
 * constant of the query. The first run fixes the SQL for the process's dialect. A query that only
 * reads, run on the database itself (not a transaction) while nothing else uses the connection,
 * runs synchronously on SQLite (connect.ts `idleReadStatement`), and with `cacheUntilWritten`
 * its result is kept until a write may have changed it.
 */
export function prepared<A extends unknown[], R>(
  build: (db: Db, ...args: A) => Compilable<R>,
  markers: A,
  options: PreparedOptions = {},
): Prepared<A, R> {
  let plan: { sql: string; slots: Slot[] } | undefined;
  const planOf = (db: Db) => {
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
    return plan;
  };
  const parametersOf = (slots: readonly Slot[], args: A) =>
    slots.map((s) => ('arg' in s ? args[s.arg] : s.value));
  const caches = new WeakMap<Db, Map<string, Cached>>();
  const cacheOptions = options.cacheUntilWritten && {
    ...options.cacheUntilWritten,
    tables: options.cacheUntilWritten.tables.map((t) => t.toLowerCase()), // as connect.ts counts them
  };
  const run = async (db: Db, ...args: A): Promise<R[]> => {
    const { sql, slots } = planOf(db);
    const version = cacheOptions ? changeVersion(db, cacheOptions.tables) : null;
    let cache: Map<string, Cached> | undefined;
    let key = '';
    if (version !== null) {
      cache = caches.get(db);
      if (!cache) caches.set(db, (cache = new Map<string, Cached>()));
      // Unambiguous for strings, numbers and null (what hot queries take): a lone string is
      // prefixed, everything else is JSON.
      key = args.length === 1 && typeof args[0] === 'string' ? `s${args[0]}` : JSON.stringify(args);
      const hit = cache.get(key);
      if (hit?.version === version) return hit.rows as R[];
    }
    const parameters = parametersOf(slots, args);
    const read = idleReadStatement(db, sql);
    const fetched = read
      ? (read.all(parameters) as R[])
      : (await db.executeQuery<R>(CompiledQuery.raw(sql, parameters))).rows;
    if (!cache || version === null || !cacheOptions) return fetched;
    const rows = Object.freeze(fetched.map((r) => Object.freeze(r)));
    if (cache.size >= cacheOptions.maxEntries && !cache.has(key)) cache.clear();
    cache.set(key, { version, rows });
    return rows as R[];
  };
  return Object.assign(run, {
    sync: (db: Db, exec: SyncExec, ...args: A): R[] => {
      const { sql, slots } = planOf(db);
      return exec(sql, parametersOf(slots, args)) as R[];
    },
  });
}

/** What `prepared` makes: the query, run through kysely (or idle, synchronously, for a read). */
export interface Prepared<A extends unknown[], R> {
  (db: Db, ...args: A): Promise<R[]>;
  /**
   * The same query run by `exec`, inside connect.ts `idleWriteTransaction` on `db` (which only
   * fixes the dialect here). Never cached.
   */
  sync(db: Db, exec: SyncExec, ...args: A): R[];
}

/** Distinct placeholder values for `prepared` (never valid data). */
export const marker = (name: string): string => `\u0000marker:${name}`;
