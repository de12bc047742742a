import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../db/index.js';
import type { SmsMessagesTable } from '../db/tables/wifi.js';

export const insertMessage = (db: Db, row: Insertable<SmsMessagesTable>) =>
  db.insertInto('sms_messages').values(row).execute();

export const updateMessage = (db: Db, id: string, patch: Updateable<SmsMessagesTable>) =>
  db.updateTable('sms_messages').set(patch).where('id', '=', id).execute();

/** The newest `limit` messages, only those `sentBy` sent unless it is null. */
export const listMessages = (db: Db, limit: number, sentBy: string | null) =>
  db
    .selectFrom('sms_messages')
    .selectAll()
    .$if(sentBy !== null, (q) => q.where('sent_by', '=', sentBy))
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .limit(limit)
    .execute();
