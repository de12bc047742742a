import type { Selectable } from 'kysely';
import type { SmsMessagesTable } from '../db/tables/wifi.js';
import { uuid } from '../lib/crypto.js';
import { isoNow } from '../lib/time.js';
import type { SendResult, SmsMessage, SmsSender } from '../notify/index.js';
import type { WifiDeps } from './deps.js';
import type { ListFilter } from './list-filter.store.js';
import { insertMessage, updateMessage } from './messages.store.js';
import { maskPhone } from './reports.js';
import { sitesOf, type SiteView } from './sites.js';
import { deleteSmsBefore, findFailedByKey, listSmsLog } from './sms-log.store.js';
import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * The SMS log (issue 21; docs/decisions/0039-sms-log.md): every SMS the box sends is a row of
 * sms_messages, so the admin SMS page shows the guests' credentials and reminders, the account
 * codes and the staff messages, each with its delivery state. The row is written before the
 * gateway is asked (`sending`: queued) and gets its answer after (`accepted`: sent, or `failed`
 * with the error). A retry of the same message (a reminder the gateway refused) counts as one
 * more attempt of its row. Secrets never reach the log: each sender gives the text to keep with
 * them blanked, and a message sent without saying what to keep is logged with no text.
 */

/** What an SMS is, as the log and its `kind` filter name it. */
export const SMS_KINDS = [
  'staff',
  'credentials',
  'reminder_ends',
  'reminder_data',
  'code',
  'reset',
  'other',
] as const;

/** The delivery states the SMS list shows, and the stored statuses each stands for. */
const STATES = {
  queued: ['sending'],
  sent: ['accepted'],
  delivered: ['delivered'],
  failed: ['failed'],
} as const;
export const SMS_STATES = Object.keys(STATES) as (keyof typeof STATES)[];

/** The delivery state (SMS_STATES) a stored status stands for. */
export const stateOf = (status: string): string =>
  SMS_STATES.find((s) => (STATES[s] as readonly string[]).includes(status)) ?? status;

type LogDeps = Pick<WifiDeps, 'db' | 'clock' | 'log'> & {
  config: Pick<WifiDeps['config'], 'smsProvider' | 'smsSenderId'>;
};

/** Starts the row of a send: a new one, or the failed row of the message this retries. */
async function begin(deps: LogDeps, message: SmsMessage): Promise<string> {
  const log = message.log === false || message.log === undefined ? { kind: 'other', text: '' } : message.log;
  const now = isoNow(deps.clock);
  const retried = log.key === undefined ? undefined : await findFailedByKey(deps.db, log.key);
  if (retried !== undefined) {
    await updateMessage(deps.db, retried.id, {
      status: 'sending',
      attempts: retried.attempts + 1,
      error: null,
      updated_at: now,
    });
    return retried.id;
  }
  const id = uuid();
  await insertMessage(deps.db, {
    id,
    recipient: message.to,
    message: log.text,
    sender_id: message.senderId ?? deps.config.smsSenderId,
    status: 'sending',
    provider: deps.config.smsProvider,
    sent_by: null,
    created_at: now,
    kind: log.kind,
    attempts: 1,
    site_id: log.siteId ?? null,
    log_key: log.key ?? null,
  });
  return id;
}

/** The gateway's answer to a send, as its row records it. */
export const outcomeOf = (result: SendResult, at: string) =>
  result.ok
    ? { status: 'accepted', provider_reference: result.providerId ?? null, error: null, updated_at: at }
    : { status: 'failed', provider_reference: null, error: result.error, updated_at: at };

/**
 * `sender` with every SMS logged. The log never stops a send: a row that cannot be written is
 * a warning, and the SMS goes out all the same.
 */
export function loggedSms<S extends SmsSender>(deps: LogDeps, sender: S): S {
  const warn = (err: unknown) =>
    deps.log.warn({ event: 'sms_log.failed', err }, 'the SMS log could not record a message');
  const sendSms = async (message: SmsMessage): Promise<SendResult> => {
    if (message.log === false) return sender.sendSms(message);
    const id = await begin(deps, message).catch((err: unknown) => {
      warn(err);
      return null;
    });
    const result = await sender.sendSms(message);
    if (id !== null) await updateMessage(deps.db, id, outcomeOf(result, isoNow(deps.clock))).catch(warn);
    return result;
  };
  // The same object (its other methods keep their `this`), its sendSms logged.
  return Object.assign(Object.create(sender) as S, { sendSms });
}

/** A row of the SMS list; viewers see the phone's last 3 digits only. */
export const presentSmsLog = (m: Selectable<SmsMessagesTable>, maskPhones: boolean) => ({
  id: m.id,
  kind: m.kind,
  recipient: maskPhones ? maskPhone(m.recipient) : m.recipient,
  message: m.message,
  sender_id: m.sender_id,
  state: stateOf(m.status),
  attempts: m.attempts,
  error: m.error,
  provider: m.provider,
  provider_reference: m.provider_reference,
  site_id: m.site_id,
  sent_by: m.sent_by,
  created_at: m.created_at,
  updated_at: m.updated_at,
});

/**
 * GET /api/v1/admin/sms: every SMS of the reader's sites (with `?site_id=`, of that site), and
 * for staff limited to sites also the staff messages they sent (those belong to no site).
 * `filter.status` is a delivery state (SMS_STATES).
 */
export async function smsLog(
  deps: Pick<WifiDeps, 'db'>,
  view: SiteView,
  reader: { userId: string; maskPhones: boolean },
  filter: ListFilter,
) {
  const sites = await sitesOf(deps.db, view);
  const narrowed = view.siteId !== undefined && view.siteId !== '';
  const rows = await listSmsLog(
    deps.db,
    {
      ...filter,
      statuses: filter.status === undefined ? undefined : STATES[filter.status as keyof typeof STATES],
    },
    { sites, sentBy: view.scope !== null && !narrowed ? reader.userId : null },
  );
  return rows.map((m) => presentSmsLog(m, reader.maskPhones));
}

/** Rows one statement of the prune deletes at most. */
export const PRUNE_BATCH = 1000;

/**
 * The daily `sms.prune` job (docs/decisions/0041-sms-retention.md): deletes the SMS log's rows
 * created more than SMS_LOG_RETENTION ago (none when it is 0: kept forever), a batch per
 * statement with a turn of the event loop between them, so RADIUS and HTTP never wait long
 * behind it. A row exactly at the limit stays.
 */
export async function pruneSmsLog(
  deps: Pick<WifiDeps, 'db' | 'clock' | 'log'> & { config: Pick<WifiDeps['config'], 'smsLogRetention'> },
  batch: number = PRUNE_BATCH,
): Promise<{ deleted: number; batches: number }> {
  const keep = deps.config.smsLogRetention;
  if (keep === 0) return { deleted: 0, batches: 0 };
  const before = new Date(deps.clock.now().getTime() - keep * 1000).toISOString();
  let deleted = 0;
  let batches = 0;
  for (;;) {
    const n = await deleteSmsBefore(deps.db, before, batch);
    batches++;
    deleted += n;
    if (n < batch) break;
    await nextTurn();
  }
  if (deleted > 0) deps.log.info({ event: 'sms_log.pruned', deleted, before }, 'old SMS log rows deleted');
  return { deleted, batches };
}
