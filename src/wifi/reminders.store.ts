import { sql, type QueryCreator } from 'kysely';
import type { Config } from '../config/index.js';
import type { DB, Db } from '../db/index.js';
import type { GrantsTable } from '../db/tables/wifi.js';

/** The reminders a grant can get (GUEST_REMINDERS names them). */
export type ReminderKind = Config['guestReminders'][number];

/** The column of each reminder that records when it was claimed. */
const REMINDER_COLUMNS = {
  ends: 'end_reminder_at',
  data: 'data_reminder_at',
} as const satisfies Record<ReminderKind, keyof GrantsTable>;

/** A live grant a reminder is due for, with where and how to reach its guest. */
export interface ReminderCandidate {
  id: string;
  /** E.164, from the purchase. */
  phone: string;
  language: string | null;
  /** The site of the purchase. */
  site_id: string;
  issued_at: string;
  expires_at: string;
  data_limit_bytes: number | null;
  /** What its sessions have used, both directions, as RADIUS accounting counted it. */
  used_octets: number;
}

/** The octets of every session of grant `g` (the radius_sessions_grant index finds them). */
const USED_OCTETS = sql<number>`(select coalesce(sum(s.input_octets + s.output_octets), 0)
  from radius_sessions s where s.grant_id = g.id)`;

/** Grants not revoked, not ended and not expired by `now`, whose guest has a phone. */
const liveGrants = (db: QueryCreator<DB>, now: string) =>
  db
    .selectFrom('grants as g')
    .innerJoin('invoices as i', 'i.id', 'g.invoice_id')
    .select([
      'g.id',
      'i.phone',
      'i.language',
      'i.site_id',
      'g.issued_at',
      'g.expires_at',
      'g.data_limit_bytes',
    ])
    .select(USED_OCTETS.as('used_octets'))
    .where('g.revoked_at', 'is', null)
    .where('g.ended_at', 'is', null)
    .where('g.expires_at', '>', now)
    .where('i.phone', 'is not', null);

/**
 * Live grants expiring after `after` and by `until` that have not had their end reminder, and
 * whose data allowance (if any) is not used up: their time is what ends them.
 */
export function selectGrantsEnding(
  db: Db,
  window: { after: string; until: string },
  limit: number,
): Promise<ReminderCandidate[]> {
  return liveGrants(db, window.after)
    .where('g.expires_at', '<=', window.until)
    .where('g.end_reminder_at', 'is', null)
    .where((eb) =>
      eb.or([eb('g.data_limit_bytes', 'is', null), eb(USED_OCTETS, '<', eb.ref('g.data_limit_bytes'))]),
    )
    .orderBy('g.expires_at')
    .limit(limit)
    .execute();
}

/**
 * Live grants with a data allowance that have used at least `percent` % of it but not all, have
 * not had their data reminder, and have a session open (their guest is online; an idle grant
 * gets it when its guest is back). Runs every minute over every such grant, so each grant's
 * usage is summed once (a materialized CTE; PostgreSQL would otherwise sum it once per mention),
 * and only for grants with an open session (radius_sessions_stopped finds those).
 */
export function selectGrantsNearDataLimit(
  db: Db,
  now: string,
  percent: number,
  limit: number,
): Promise<(ReminderCandidate & { data_limit_bytes: number })[]> {
  return db
    .with(
      (cte) => cte('online').materialized(),
      (qc) =>
        liveGrants(qc, now)
          .where('g.data_reminder_at', 'is', null)
          .where('g.data_limit_bytes', 'is not', null)
          .where('g.id', 'in', (eb) =>
            eb
              .selectFrom('radius_sessions as o')
              .select('o.grant_id')
              .where('o.stopped_at', 'is', null)
              .where('o.grant_id', 'is not', null)
              .$narrowType<{ grant_id: string }>(),
          ),
    )
    .selectFrom('online')
    .selectAll()
    .$narrowType<{ data_limit_bytes: number }>()
    .where(sql<boolean>`used_octets * 100 >= data_limit_bytes * ${percent}`)
    .where(sql<boolean>`used_octets < data_limit_bytes`)
    .orderBy('expires_at')
    .limit(limit)
    .execute();
}

/**
 * Claims a grant's reminder for the caller: records `at` unless the reminder was claimed already
 * or the grant was revoked or ended meanwhile. One conditional UPDATE, so of two daemons (or a
 * job run twice) exactly one gets true.
 */
export async function claimReminder(
  db: Db,
  grantId: string,
  kind: ReminderKind,
  at: string,
): Promise<boolean> {
  const column = REMINDER_COLUMNS[kind];
  const result = await db
    .updateTable('grants')
    .set({ [column]: at })
    .where('id', '=', grantId)
    .where(column, 'is', null)
    .where('revoked_at', 'is', null)
    .where('ended_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Gives back the claim made at `at` (the SMS could not be sent), so a later run tries again. */
export async function releaseReminder(
  db: Db,
  grantId: string,
  kind: ReminderKind,
  at: string,
): Promise<void> {
  const column = REMINDER_COLUMNS[kind];
  await db
    .updateTable('grants')
    .set({ [column]: null })
    .where('id', '=', grantId)
    .where(column, '=', at)
    .execute();
}
