import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { sql, type Compilable } from 'kysely';
import { databaseFile, type Db } from '../db/index.js';

/**
 * Runs a report's read off the event loop (docs/decisions/0036-reports.md). better-sqlite3 is
 * synchronous: a read over a year of sessions on the daemon's own connection would stop RADIUS and
 * HTTP for its whole length. So on SQLite the compiled query goes to a worker thread with its own
 * connection to the same file (WAL lets it read beside the daemon's writer; it never writes:
 * `query_only`), and the rows come back as a message. PostgreSQL is asynchronous already: the
 * query runs through kysely as any other, with JIT off.
 */

/** The worker, plain JavaScript so that it runs the same from `src/` (tests) and `dist/`. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('query_only = ON');
db.pragma('busy_timeout = 5000');
// A report's small sorts (one site-day's groups) stay in memory rather than in temporary files.
db.pragma('temp_store = MEMORY');
parentPort.on('message', (m) => {
  try {
    parentPort.postMessage({ id: m.id, rows: db.prepare(m.sql).all(...m.params) });
  } catch (err) {
    parentPort.postMessage({ id: m.id, error: String(err && err.message ? err.message : err) });
  }
});
`;

interface Pending {
  resolve: (rows: unknown[]) => void;
  reject: (err: Error) => void;
}

interface Reader {
  worker: Worker;
  pending: Map<number, Pending>;
  next: number;
}

/** One worker per database file, started at the first report and kept (unref'd: it never holds the process open). */
const readers = new Map<string, Reader>();

function readerFor(file: string): Reader {
  const known = readers.get(file);
  if (known) return known;
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  // No --import loaders in it (tests run under a TypeScript loader): it is plain JavaScript.
  const worker = new Worker(WORKER_SOURCE, { eval: true, execArgv: [], workerData: { driver, file } });
  worker.unref();
  const reader: Reader = { worker, pending: new Map(), next: 1 };
  const fail = (err: Error) => {
    readers.delete(file);
    for (const p of reader.pending.values()) p.reject(err);
    reader.pending.clear();
  };
  worker.on('message', (m: { id: number; rows?: unknown[]; error?: string }) => {
    const p = reader.pending.get(m.id);
    if (!p) return;
    reader.pending.delete(m.id);
    if (m.error !== undefined) p.reject(new Error(m.error));
    else p.resolve(m.rows ?? []);
    if (reader.pending.size === 0) worker.unref();
  });
  worker.on('error', fail);
  worker.on('exit', () => {
    fail(new Error('the report reader stopped'));
  });
  readers.set(file, reader);
  return reader;
}

/** The rows of `query`: on SQLite read by the worker, on PostgreSQL through kysely. */
export async function readRows<R>(db: Db, query: Compilable<R>): Promise<R[]> {
  const file = databaseFile(db);
  if (file === null)
    // PostgreSQL would JIT-compile a report's query (its correlated subqueries look costly to the
    // planner) for longer than the query runs: JIT is off on its connection while it runs.
    return db.connection().execute(async (conn) => {
      await sql`set jit = off`.execute(conn);
      try {
        return (await conn.executeQuery(query.compile())).rows;
      } finally {
        await sql`reset jit`.execute(conn);
      }
    });
  const compiled = query.compile();
  const reader = readerFor(file);
  const id = reader.next++;
  const rows = new Promise<unknown[]>((resolve, reject) => reader.pending.set(id, { resolve, reject }));
  reader.worker.ref(); // a report in flight keeps the CLI alive until its rows arrive
  reader.worker.postMessage({ id, sql: compiled.sql, params: compiled.parameters });
  return (await rows) as R[];
}
