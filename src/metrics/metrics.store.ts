import type { Db } from '../db/index.js';

/** Figures of the shared database for GET /metrics: one grouped count per table. */

export const openSessions = async (db: Db): Promise<number> =>
  Number(
    (
      await db
        .selectFrom('radius_sessions')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('stopped_at', 'is', null)
        .executeTakeFirstOrThrow()
    ).n,
  );

/** Grants neither revoked, ended nor expired at `now`. */
export const liveGrants = async (db: Db, now: string): Promise<number> =>
  Number(
    (
      await db
        .selectFrom('grants')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('revoked_at', 'is', null)
        .where('ended_at', 'is', null)
        .where('expires_at', '>', now)
        .executeTakeFirstOrThrow()
    ).n,
  );

export const invoicesByStatus = (db: Db) =>
  db
    .selectFrom('invoices')
    .select((eb) => ['status', eb.fn.countAll().as('n')])
    .groupBy('status')
    .orderBy('status')
    .execute();

/** Payment rows by channel and kind (`sale`, or `refund`: a sale's money given back by hand). */
export const paymentsByChannel = (db: Db) =>
  db
    .selectFrom('payments')
    .select((eb) => ['channel', 'kind', eb.fn.countAll().as('n')])
    .groupBy(['channel', 'kind'])
    .orderBy('channel')
    .orderBy('kind')
    .execute();
