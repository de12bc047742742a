/**
 * WAL checkpoints on the event loop or on a thread (src/db/checkpoint.ts): a steady writer of
 * Interim-Update-like transactions (each updates `ROWS_PER_COMMIT` random rows of a 20,000-row
 * table) through `idleWriteTransaction`, the accounting path's synchronous commit, first on a
 * connection with SQLite's own checkpoints (the baseline: the COMMIT that takes the WAL past 1,000
 * pages copies it back, on the event loop), then on a daemon connection with the thread, in
 * alternating rounds on fresh files. It prints how long each commit held the event loop (p50,
 * p99, max), the commits per second, and the WAL's largest length the thread saw.
 *
 * `npm run bench:checkpoint` (CHECKPOINT_COMMITS per round, default 3000; CHECKPOINT_ROUNDS,
 * default 3; CHECKPOINT_DIR, default the system's temp dir). A slow disk: bench/slow-fsync.c.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { idleWriteTransaction, openDatabase } from '../src/db/index.js';

const COMMITS = Number(process.env.CHECKPOINT_COMMITS ?? 3000);
const ROUNDS = Number(process.env.CHECKPOINT_ROUNDS ?? 3);
const ROWS = 20_000;
const ROWS_PER_COMMIT = 27;

interface Result {
  /** How long each commit held the event loop, ms. */
  held: number[];
  seconds: number;
  maxFrames: number;
  rounds: number;
  restarts: number;
}

async function round(thread: boolean): Promise<Result> {
  const dir = mkdtempSync(path.join(process.env.CHECKPOINT_DIR ?? tmpdir(), 'hotspot-checkpoint-'));
  let maxFrames = 0;
  let rounds = 0;
  let restarts = 0;
  const { db } = openDatabase(path.join(dir, 'bench.db'), {
    ...(thread && {
      checkpoints: {
        onRound: (r) => {
          maxFrames = Math.max(maxFrames, r.frames);
          rounds++;
          if (r.restarted) restarts++;
        },
        onError: (err) => {
          throw err;
        },
      },
    }),
  });
  try {
    await sql`create table s (id integer primary key, octets integer not null, heard text not null)`.execute(
      db,
    );
    await db.transaction().execute(async (tx) => {
      for (let i = 1; i <= ROWS; i += 500) {
        const ids = Array.from({ length: 500 }, (_, k) => i + k);
        await sql`insert into s (id, octets, heard) select value, 0, '' from json_each(${JSON.stringify(ids)})`.execute(
          tx,
        );
      }
    });
    const held: number[] = [];
    let seed = 7;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) % ROWS;
    const start = performance.now();
    for (let n = 0; n < COMMITS;) {
      const t0 = performance.now();
      const done = idleWriteTransaction(db, (exec) => {
        for (let k = 0; k < ROWS_PER_COMMIT; k++)
          exec('update s set octets = octets + ?, heard = ? where id = ?', [n, String(t0), random() + 1]);
      });
      if (done) {
        held.push(performance.now() - t0);
        n++;
        await done.durable; // as the accounting path: the next batch after this one's sync
      } else {
        // The thread's RESTART holds the write lock: wait with a timer, as the queue would.
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    }
    return { held, seconds: (performance.now() - start) / 1000, maxFrames, rounds, restarts };
  } finally {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}

const at = (xs: readonly number[], q: number) => xs[Math.min(xs.length - 1, Math.floor(xs.length * q))] ?? 0;

const all = { own: [] as Result[], thread: [] as Result[] };
for (let r = 0; r < ROUNDS; r++) {
  all.own.push(await round(false));
  all.thread.push(await round(true));
}

function summary(results: Result[]) {
  const held = results.flatMap((r) => r.held).sort((a, b) => a - b);
  const rate = results.reduce((a, r) => a + r.held.length, 0) / results.reduce((a, r) => a + r.seconds, 0);
  return {
    p50: at(held, 0.5),
    p99: at(held, 0.99),
    p999: at(held, 0.999),
    max: at(held, 1),
    rate,
    maxFrames: Math.max(...results.map((r) => r.maxFrames)),
    rounds: results.reduce((a, r) => a + r.rounds, 0),
    restarts: results.reduce((a, r) => a + r.restarts, 0),
  };
}

const own = summary(all.own);
const thread = summary(all.thread);
const ms = (x: number) => `${x.toFixed(3)} ms`;
const ratio = (a: number, b: number) => (b === 0 ? '-' : `${(a / b).toFixed(2)}×`);
const row = (label: string, a: string, b: string, r: string) =>
  `${label.padEnd(30)}${a.padStart(16)}${b.padStart(16)}${r.padStart(12)}`;
process.stdout.write(
  [
    `${String(ROUNDS)} rounds of ${String(COMMITS)} commits, ${String(ROWS_PER_COMMIT)} row updates each, alternating; ${process.env.CHECKPOINT_DIR ?? tmpdir()}` +
      (process.env.LD_PRELOAD?.includes('slow-fsync')
        ? `; every fsync ${process.env.SLOW_FSYNC_MS ?? '0'} ms slower (slow-fsync.c)`
        : ''),
    row('', 'SQLite’s own', 'thread', 'thread/own'),
    row('event loop held, p50', ms(own.p50), ms(thread.p50), ratio(thread.p50, own.p50)),
    row('event loop held, p99', ms(own.p99), ms(thread.p99), ratio(thread.p99, own.p99)),
    row('event loop held, p99.9', ms(own.p999), ms(thread.p999), ratio(thread.p999, own.p999)),
    row('event loop held, max', ms(own.max), ms(thread.max), ratio(thread.max, own.max)),
    row('commits per second', own.rate.toFixed(0), thread.rate.toFixed(0), ratio(thread.rate, own.rate)),
    row('longest WAL the thread saw', '-', `${String(thread.maxFrames)} frames`, ''),
    row('thread rounds / restarts', '-', `${String(thread.rounds)} / ${String(thread.restarts)}`, ''),
    '',
  ].join('\n'),
);
