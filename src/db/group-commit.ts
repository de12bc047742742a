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
  /** A flush is scheduled or waiting for the connection, and has not taken its batch yet. */
  #scheduled = false;
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
    if (this.#scheduled || this.#queue.length === 0) return;
    this.#scheduled = true;
    setImmediate(() => void this.#flush());
  }

  /**
   * Groups are pipelined: the next one starts as soon as the connection is free, i.e. once the
   * previous group committed, while that commit's WAL sync is still under way (the driver hands
   * the connection on before it waits for the disk). Its own answer still waits for a sync that
   * began after its commit, so the disk and the CPU work at the same time.
   */
  async #flush(): Promise<void> {
    const taken: { batch: Job[] | null } = { batch: null };
    // The batch is taken when the transaction has begun: units that arrived while this flush
    // waited for the connection join in, and the next flush may be scheduled.
    const take = (): Job[] => {
      const batch = this.#queue.splice(0, this.#maxBatch);
      taken.batch = batch;
      this.#scheduled = false;
      this.#schedule();
      return batch;
    };
    const outcomes: { ok: boolean; value: unknown }[] = [];
    try {
      await this.#db.transaction().execute(async (tx) => {
        for (const job of take()) {
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
      const done = taken.batch ?? [];
      if (done.length > 0) {
        this.stats.transactions++;
        this.stats.units += done.length;
      }
      done.forEach((job, i) => {
        const outcome = outcomes[i];
        if (outcome?.ok) job.resolve(outcome.value);
        else job.reject(outcome?.value);
      });
    } catch (err) {
      // BEGIN or COMMIT failed: nothing of the batch is durable (taken now if BEGIN failed).
      for (const job of taken.batch ?? take()) job.reject(err);
    }
  }
}
