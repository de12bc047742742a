import { CompiledQuery } from 'kysely';
import type { Db } from './connect.js';

/** Compiled once: every unit runs them. */
const SAVEPOINT = CompiledQuery.raw('savepoint unit');
const ROLLBACK_TO_SAVEPOINT = CompiledQuery.raw('rollback to savepoint unit');
const RELEASE_SAVEPOINT = CompiledQuery.raw('release savepoint unit');

interface Job {
  work: (tx: Db) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/**
 * Group commit: units of work that arrive together run in one transaction, each inside its own
 * savepoint, and share one commit (one WAL sync, see wal-sync.ts). Every caller still learns
 * its outcome only after the commit that made its writes durable, and a unit that throws is rolled
 * back to its savepoint without touching the others. Used on hot write paths (token grants) where
 * the fsync per transaction would otherwise set the pace.
 */
export class GroupCommit {
  readonly #db: Db;
  readonly #maxBatch: number;
  #queue: Job[] = [];
  #scheduled = false;
  #running = false;
  /** Transactions committed and units run through them (logged by benchmarks, checked by tests). */
  readonly stats = { transactions: 0, units: 0 };

  constructor(db: Db, maxBatch = 64) {
    this.#db = db;
    this.#maxBatch = maxBatch;
  }

  /** Runs `work` in the next group transaction; resolves after that transaction committed. */
  run<T>(work: (tx: Db) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#scheduled || this.#running || this.#queue.length === 0) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      void this.#flush();
    });
  }

  async #flush(): Promise<void> {
    this.#running = true;
    const batch = this.#queue.splice(0, this.#maxBatch);
    const outcomes: { ok: boolean; value: unknown }[] = [];
    try {
      await this.#db.transaction().execute(async (tx) => {
        for (const job of batch) {
          await tx.executeQuery(SAVEPOINT);
          try {
            outcomes.push({ ok: true, value: await job.work(tx) });
          } catch (err) {
            await tx.executeQuery(ROLLBACK_TO_SAVEPOINT);
            outcomes.push({ ok: false, value: err });
          }
          await tx.executeQuery(RELEASE_SAVEPOINT);
        }
      });
      this.stats.transactions++;
      this.stats.units += batch.length;
      batch.forEach((job, i) => {
        const outcome = outcomes[i];
        if (outcome?.ok) job.resolve(outcome.value);
        else job.reject(outcome?.value);
      });
    } catch (err) {
      // The commit itself failed: nothing of the batch is durable.
      for (const job of batch) job.reject(err);
    } finally {
      this.#running = false;
      this.#schedule();
    }
  }
}
