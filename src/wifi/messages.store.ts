import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../db/index.js';
import { pagedWindow, type ListFilter } from './list-filter.store.js';
import { SMS_WINDOW } from './sms-log.store.js';
import type { SmsMessagesTable } from '../db/tables/wifi.js';

export const insertMessage = (db: Db, row: Insertable<SmsMessagesTable>) =>
  db.insertInto('sms_messages').values(row).execute();

export const updateMessage = (db: Db, id: string, patch: Updateable<SmsMessagesTable>) =>
  db.updateTable('sms_messages').set(patch).where('id', '=', id).execute();

/** The newest staff messages the filter lets through, only those `sentBy` sent unless it is null. */
export const listMessages = (db: Db, filter: ListFilter, sentBy: string | null) =>
  pagedWindow(
    db
      .selectFrom('sms_messages')
      .selectAll()
      .where('kind', '=', 'staff')
      .$if(sentBy !== null, (q) => q.where('sent_by', '=', sentBy))
      .$if(filter.status !== undefined, (w) => w.where('status', '=', filter.status ?? '')),
    filter,
    SMS_WINDOW,
  ).execute();
