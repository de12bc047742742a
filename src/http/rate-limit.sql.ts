import { sql } from 'kysely';
import type { Db } from '../db/index.js';
import type { RateLimitStore } from './rate-limit.js';

/**
 * Limiter windows in the database (`rate_limits`, migration 0018), for daemons that share one
 * PostgreSQL: each increment is one atomic upsert, so a client's requests count against one
 * budget whichever daemon answers them. A window's key names its start, so an old window is
 * never reused; prune deletes the ended ones.
 */
export class SqlRateLimitStore implements RateLimitStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  async increment(key: string, expiresAtMs: number, by = 1): Promise<number> {
    const row = await this.#db
      .insertInto('rate_limits')
      .values({ key, count: by, expires_at_ms: expiresAtMs })
      .onConflict((oc) =>
        oc.column('key').doUpdateSet({ count: sql<number>`rate_limits.count + excluded.count` }),
      )
      .returning('count')
      .executeTakeFirstOrThrow();
    return row.count;
  }

  async prune(nowMs: number): Promise<void> {
    await this.#db.deleteFrom('rate_limits').where('expires_at_ms', '<=', nowMs).execute();
  }
}
