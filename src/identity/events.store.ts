import type { Insertable } from 'kysely';
import type { Db } from '../db/index.js';
import type { SecurityEventsTable } from '../db/tables/identity.js';

export const insertEvent = (db: Db, row: Insertable<SecurityEventsTable>) =>
  db.insertInto('security_events').values(row).execute();

export const listEvents = (db: Db, userId: string, limit: number) =>
  db
    .selectFrom('security_events')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();

/** Whether the user has signed in before, and whether ever from this address. */
export async function loginHistory(
  db: Db,
  userId: string,
  ip: string,
): Promise<{ any: boolean; fromIp: boolean }> {
  const logins = db
    .selectFrom('security_events')
    .select('id')
    .where('user_id', '=', userId)
    .where('action', '=', 'login');
  const any = await logins.limit(1).executeTakeFirst();
  const fromIp = any ? await logins.where('ip_address', '=', ip).limit(1).executeTakeFirst() : undefined;
  return { any: any !== undefined, fromIp: fromIp !== undefined };
}
