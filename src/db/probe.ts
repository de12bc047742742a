import { sql } from 'kysely';
import type { Db } from './connect.js';

/** True when the database answers a trivial query. */
export async function databaseReady(db: Db): Promise<boolean> {
  try {
    await sql`select 1`.execute(db);
    return true;
  } catch {
    return false;
  }
}
