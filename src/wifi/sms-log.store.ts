import type { Updateable } from 'kysely';
import type { Db } from '../db/index.js';
import type { SmsMessagesTable } from '../db/tables/wifi.js';
import { pagedWindow, type ListFilter, type WindowColumns } from './list-filter.store.js';
import type { SiteScope } from './sites.js';

/** The SMS lists' search, time window and order (messages.store.ts shares it). */
export const SMS_WINDOW: WindowColumns = {
  time: 'created_at',
  tie: 'id',
  search: ['recipient', 'message'],
  phones: ['recipient'],
};

/** The latest failed row of a retried message (sms-log.ts), to count the retry on. */
export const findFailedByKey = (db: Db, key: string) =>
  db
    .selectFrom('sms_messages')
    .select(['id', 'attempts'])
    .where('log_key', '=', key)
    .where('status', '=', 'failed')
    .orderBy('created_at', 'desc')
    .executeTakeFirst();

/** The message a gateway's delivery report names (migration 0042's index). */
export const findByReference = (db: Db, provider: string, reference: string) =>
  db
    .selectFrom('sms_messages')
    .select(['id', 'status'])
    .where('provider', '=', provider)
    .where('provider_reference', '=', reference)
    .orderBy('created_at', 'desc')
    .executeTakeFirst();

/**
 * A delivery report's outcome on a message the gateway took and nothing has reported on yet;
 * false when the message was no longer `accepted` (a report recorded in between).
 */
export async function markDelivery(
  db: Db,
  id: string,
  patch: Pick<Updateable<SmsMessagesTable>, 'status' | 'error' | 'updated_at'>,
): Promise<boolean> {
  const result = await db
    .updateTable('sms_messages')
    .set(patch)
    .where('id', '=', id)
    .where('status', '=', 'accepted')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Every SMS the filter lets through, newest first (GET /api/v1/admin/sms). A reader limited to
 * `sites` sees the messages of those sites, and those `sentBy` sent when it is given.
 */
export const listSmsLog = (
  db: Db,
  filter: ListFilter & { statuses?: readonly string[] | undefined },
  reader: { sites: SiteScope; sentBy: string | null },
) =>
  pagedWindow(
    db
      .selectFrom('sms_messages')
      .selectAll()
      .$if(reader.sites !== null, (w) =>
        w.where((eb) => {
          const inSites = eb('site_id', 'in', reader.sites ?? []);
          return reader.sentBy === null ? inSites : eb.or([inSites, eb('sent_by', '=', reader.sentBy)]);
        }),
      )
      .$if(filter.statuses !== undefined, (w) => w.where('status', 'in', filter.statuses ?? []))
      .$if(filter.kind !== undefined, (w) => w.where('kind', '=', filter.kind ?? '')),
    filter,
    SMS_WINDOW,
  ).execute();

/**
 * Deletes up to `batch` rows created before `before`, oldest first; returns how many. One short
 * statement (a bounded subquery on sms_messages_created), so it never holds the write lock long.
 */
export async function deleteSmsBefore(db: Db, before: string, batch: number): Promise<number> {
  const result = await db
    .deleteFrom('sms_messages')
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('sms_messages')
        .select('id')
        .where('created_at', '<', before)
        .orderBy('created_at')
        .limit(batch),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
