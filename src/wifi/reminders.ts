import { mapConcurrent } from '../lib/concurrent.js';
import type { WifiDeps } from './deps.js';
import { guestLanguageOr, type GuestLanguage } from './language.js';
import {
  claimReminder,
  releaseReminder,
  selectGrantsEnding,
  selectGrantsNearDataLimit,
  type ReminderCandidate,
  type ReminderKind,
} from './reminders.store.js';

/**
 * Messages to guests (DESIGN.md §4.8): an SMS 10 minutes before a grant ends and one when 80 % of
 * its data allowance is used, each at most once per grant, in the language the guest bought in,
 * to the phone that paid. GUEST_REMINDERS switches either off. docs/decisions/0031-guest-reminders.md.
 */

/**
 * What each reminder says, in each language the portal speaks (web/strings/sms.*.ts):
 * `{service}` (SERVICE_NAME), `{minutes}` (time left, ends) and `{percent}` (data used) are
 * filled in.
 */
export type ReminderTexts = Readonly<Record<GuestLanguage, Readonly<Record<ReminderKind, string>>>>;

/** The end reminder goes this long before a grant ends (the job runs every minute). */
const END_NOTICE_SECONDS = 600;
/** No end reminder with less time left than this: too late to buy more before being cut off. */
const END_NOTICE_AT_LEAST_SECONDS = 60;
/** The data reminder goes once this share of the allowance is used. */
const DATA_NOTICE_PERCENT = 80;
/** Grants handled per kind and run, at most; the rest wait for the next run. */
const BATCH = 200;
/** SMS under way at once (a gateway that does not answer costs its timeout per message). */
const SENDS_AT_ONCE = 8;

type Deps = Pick<WifiDeps, 'db' | 'clock' | 'config' | 'notifier' | 'log'>;

interface DueReminder {
  kind: ReminderKind;
  grant: ReminderCandidate;
  values: Readonly<Record<string, string | number>>;
}

export interface ReminderOutcome {
  grantId: string;
  kind: ReminderKind;
  /** sent: the gateway took it; failed: it did not (a later run tries again); elsewhere: claimed by another run. */
  outcome: 'sent' | 'failed' | 'elsewhere';
}

/**
 * The scheduled job. For each reminder due, a conditional UPDATE claims it (so of two daemons,
 * or two runs, one sends it) and commits before the SMS goes out through the notifier, the path
 * of the credentials SMS: a crash after the claim loses that reminder rather than sending it
 * twice. A send the gateway refuses gives the claim back, and the next run tries again while
 * the reminder is still due.
 */
export async function remindGuests(deps: Deps, texts: ReminderTexts): Promise<ReminderOutcome[]> {
  const now = deps.clock.now();
  const due = [...(await dueEndReminders(deps, now)), ...(await dueDataReminders(deps, now))];
  return mapConcurrent(due, SENDS_AT_ONCE, (reminder) => send(deps, texts, reminder, now.toISOString()));
}

const isoAfter = (now: Date, seconds: number): string =>
  new Date(now.getTime() + seconds * 1000).toISOString();
const ms = (iso: string): number => Date.parse(iso);

/**
 * Grants ending within END_NOTICE_SECONDS. One that never lasted longer than that gets none: it
 * would come with the credentials.
 */
async function dueEndReminders(deps: Deps, now: Date): Promise<DueReminder[]> {
  if (!deps.config.guestReminders.includes('ends')) return [];
  const window = {
    after: isoAfter(now, END_NOTICE_AT_LEAST_SECONDS),
    until: isoAfter(now, END_NOTICE_SECONDS),
  };
  const grants = await selectGrantsEnding(deps.db, window, BATCH);
  return grants
    .filter((g) => ms(g.expires_at) - ms(g.issued_at) > END_NOTICE_SECONDS * 1000)
    .map((grant) => ({
      kind: 'ends',
      grant,
      values: { minutes: Math.ceil((ms(grant.expires_at) - now.getTime()) / 60_000) },
    }));
}

/** Grants that have used DATA_NOTICE_PERCENT of their data allowance, and not all of it. */
async function dueDataReminders(deps: Deps, now: Date): Promise<DueReminder[]> {
  if (!deps.config.guestReminders.includes('data')) return [];
  const grants = await selectGrantsNearDataLimit(deps.db, now.toISOString(), DATA_NOTICE_PERCENT, BATCH);
  return grants.map((grant) => ({
    kind: 'data',
    grant,
    values: { percent: Math.floor((grant.used_octets * 100) / grant.data_limit_bytes) },
  }));
}

async function send(
  deps: Deps,
  texts: ReminderTexts,
  due: DueReminder,
  at: string,
): Promise<ReminderOutcome> {
  const { kind, grant } = due;
  const outcome = (o: ReminderOutcome['outcome']): ReminderOutcome => ({
    grantId: grant.id,
    kind,
    outcome: o,
  });
  if (!(await claimReminder(deps.db, grant.id, kind, at))) return outcome('elsewhere');
  const template = texts[guestLanguageOr(grant.language)][kind];
  const message = fill(template, { service: deps.config.serviceName, ...due.values });
  const result = await deps.notifier.sendSms({
    to: grant.phone,
    message,
    // A refused reminder is sent again by a later run: another attempt of the same log row.
    log: {
      kind: `reminder_${kind}`,
      text: message,
      siteId: grant.site_id,
      key: `reminder_${kind}:${grant.id}`,
    },
  });
  if (!result.ok) {
    await releaseReminder(deps.db, grant.id, kind, at);
    return outcome('failed');
  }
  deps.log.info({ event: 'grant.reminded', grant_id: grant.id, kind }, 'reminder sent to the guest');
  return outcome('sent');
}

/** `Hello {name}` with `{name}` filled in; an unknown name stays as it is. */
const fill = (template: string, values: Readonly<Record<string, string | number>>): string =>
  template.replace(/\{(\w+)\}/g, (whole, name: string) => String(values[name] ?? whole));
