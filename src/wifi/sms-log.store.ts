import type { Db } from '../db/index.js';
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
