import type { Selectable } from 'kysely';
import type { SmsMessagesTable } from '../db/tables/wifi.js';
import { uuid } from '../lib/crypto.js';
import { normalisePhone } from '../lib/phone.js';
import { isoNow } from '../lib/time.js';
import type { WifiDeps } from './deps.js';
import { recordAudit, type WifiActor } from './audit.js';
import { wifiErrors } from './errors.js';
import { insertMessage, listMessages, updateMessage } from './messages.store.js';
import { plainList, type ListFilter } from './list-filter.store.js';
import { outcomeOf } from './sms-log.js';
import { ADMIN_LIST_LIMIT } from './limits.js';
import type { SiteScope } from './sites.js';

/** wifi-access-api.md §8: a message of at most 1,600 bytes (UTF-8). */
export const SMS_MAX_BYTES = 1600;
/** TCRA sender ids: letters and digits, at most 11. */
const SENDER_ID = /^[A-Za-z0-9]{1,11}$/;

export const presentMessage = (m: Selectable<SmsMessagesTable>) => ({
  id: m.id,
  recipient: m.recipient,
  message: m.message,
  sender_id: m.sender_id,
  status: m.status,
  provider: m.provider,
  provider_reference: m.provider_reference,
  error: m.error,
  sent_by: m.sent_by,
  created_at: m.created_at,
});

export interface SmsRequest {
  recipient: string;
  message: string;
  sender_id?: string | undefined;
}

/**
 * POST /api/v1/admin/messages. The record is committed first (status `sending`), then the
 * gateway is asked, then the record gets the gateway's answer: `accepted` (202) or `failed`
 * (502). Accepted means the gateway took it, not that the handset received it.
 */
export async function sendStaffSms(
  deps: Pick<WifiDeps, 'db' | 'clock' | 'config' | 'notifier' | 'log'>,
  staffId: string | null,
  request: SmsRequest,
  actor?: WifiActor,
) {
  const recipient = normalisePhone(request.recipient, deps.config.defaultCountryCode);
  if (recipient === null) throw wifiErrors.smsRecipientInvalid();
  const bytes = Buffer.byteLength(request.message, 'utf8');
  if (bytes < 1 || bytes > SMS_MAX_BYTES) throw wifiErrors.smsMessageInvalid();
  if (request.sender_id !== undefined && !SENDER_ID.test(request.sender_id))
    throw wifiErrors.smsSenderInvalid();
  const senderId = request.sender_id ?? deps.config.smsSenderId;
  const row: Selectable<SmsMessagesTable> = {
    id: uuid(),
    recipient,
    message: request.message,
    sender_id: senderId,
    status: 'sending',
    provider: deps.config.smsProvider,
    provider_reference: null,
    error: null,
    sent_by: staffId,
    created_at: isoNow(deps.clock),
    kind: 'staff',
    attempts: 1,
    site_id: null,
    log_key: null,
    updated_at: null,
  };
  await deps.db.transaction().execute(async (tx) => {
    await insertMessage(tx, row);
    if (actor)
      await recordAudit(tx, deps.clock, {
        actor,
        action: 'sms.send',
        target: { type: 'sms', id: row.id },
        after: { recipient, sender_id: senderId, message: request.message },
      });
  });
  // Its row is the one above, so the SMS log (sms-log.ts) is told not to write another.
  const result = await deps.notifier.sendSms({
    to: recipient,
    message: request.message,
    senderId,
    log: false,
  });
  const outcome = outcomeOf(result, isoNow(deps.clock));
  await updateMessage(deps.db, row.id, outcome);
  const record = presentMessage({ ...row, ...outcome });
  return { accepted: result.ok, record };
}

/**
 * GET /api/v1/admin/messages: the staff messages (the other SMS are on GET /api/v1/admin/sms,
 * sms-log.ts). SMS records belong to no site, so staff whose role is limited to
 * sites see only those they sent themselves (docs/decisions/0024-sites.md).
 */
export async function messages(
  deps: Pick<WifiDeps, 'db'>,
  reader: { userId: string; sites: SiteScope } | null = null,
  filter: ListFilter = plainList(ADMIN_LIST_LIMIT),
) {
  const sentBy = reader !== null && reader.sites !== null ? reader.userId : null;
  return (await listMessages(deps.db, filter, sentBy)).map(presentMessage);
}
