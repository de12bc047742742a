import { safeEqual } from '../lib/crypto.js';
import { errorCatalogue } from '../lib/errors.js';
import { isoNow } from '../lib/time.js';
import type { WifiDeps } from './deps.js';
import { stateOf } from './sms-log.js';
import { findByReference, markDelivery } from './sms-log.store.js';

/**
 * SMS delivery reports (docs/decisions/0047-sms-delivery.md). A gateway's "accepted" is not
 * "delivered": the handset's answer comes later, as a report the gateway POSTs to
 * `PUBLIC_BASE_URL/sms/delivery/<SMS_DELIVERY_TOKEN>`. Neither Africa's Talking nor Beem signs
 * its reports, so, as with AzamPay's payment callbacks, the URL's last segment is the secret. A
 * report names the message by the reference the gateway gave when it took it; the SMS log's row
 * with that reference becomes `delivered`, or `failed` with the gateway's reason.
 */

export const smsDeliveryErrors = errorCatalogue({
  off: [404, 'SMS delivery reports are off: set SMS_DELIVERY_TOKEN'],
  badToken: [401, 'invalid delivery report token'],
  invalidReport: [
    400,
    'invalid delivery report: it needs the message id and a status (delivered, failed or pending)',
  ],
  unknownMessage: [404, 'no SMS with that reference'],
});

/** What a report says of a message: reached the phone, will not, or not yet. */
export type DeliveryOutcome = 'delivered' | 'failed' | 'pending';

/**
 * The gateways' statuses, lower-cased. Africa's Talking: Success; Failed, Rejected; Sent,
 * Submitted, Buffered on the way. Beem: DELIVERED, UNDELIVERED, PENDING (and the like). The
 * `http` gateway: delivered, failed, pending.
 */
const OUTCOMES: Readonly<Record<string, DeliveryOutcome>> = {
  success: 'delivered',
  delivered: 'delivered',
  delivrd: 'delivered',
  failed: 'failed',
  rejected: 'failed',
  undelivered: 'failed',
  undeliv: 'failed',
  expired: 'failed',
  pending: 'pending',
  sent: 'pending',
  submitted: 'pending',
  buffered: 'pending',
  accepted: 'pending',
  enroute: 'pending',
};

export interface DeliveryReport {
  /** The gateway's reference of the message (provider_reference). */
  reference: string;
  outcome: DeliveryOutcome;
  /** The gateway's words for a failure (Africa's Talking's failureReason, the http gateway's error). */
  reason: string | null;
}

const text = (v: unknown): string | undefined =>
  typeof v === 'string' && v.trim() !== '' ? v.trim() : typeof v === 'number' ? String(v) : undefined;

/** At most this much of a gateway's failure reason is kept. */
const REASON_MAX = 200;

/**
 * One gateway's report, from its fields (a JSON object or a form). The message id is `id` (Africa's
 * Talking, http), `request_id` (Beem) or `message_id` (http); the status `status` or `Status`.
 */
export function parseDeliveryReport(fields: Readonly<Record<string, unknown>>): DeliveryReport {
  const reference = text(fields.id) ?? text(fields.request_id) ?? text(fields.message_id);
  const status = text(fields.status) ?? text(fields.Status);
  const key = status?.toLowerCase() ?? '';
  // Own keys only: "constructor" is no status.
  const outcome = Object.hasOwn(OUTCOMES, key) ? OUTCOMES[key] : undefined;
  if (reference === undefined || reference.length > 200 || status === undefined || outcome === undefined)
    throw smsDeliveryErrors.invalidReport();
  const reason = text(fields.failureReason) ?? text(fields.error) ?? text(fields.reason) ?? status;
  return { reference, outcome, reason: outcome === 'failed' ? reason.slice(0, REASON_MAX) : null };
}

/** The report's body as fields: JSON (an object) or a form, whichever it parses as. */
export function reportFields(raw: Buffer, contentType: string | undefined): Record<string, unknown> {
  const body = raw.toString('utf8');
  if (/json/i.test(contentType ?? '') || body.trimStart().startsWith('{')) {
    try {
      const value: unknown = JSON.parse(body);
      if (typeof value === 'object' && value !== null && !Array.isArray(value))
        return value as Record<string, unknown>;
    } catch {
      // not JSON after all
    }
    throw smsDeliveryErrors.invalidReport();
  }
  return Object.fromEntries(new URLSearchParams(body));
}

/** The token is checked before the report is parsed: without it, the route does not exist. */
export function checkDeliveryToken(deps: Pick<WifiDeps, 'config'>, token: string): void {
  const expected = deps.config.smsDeliveryToken;
  if (expected === null) throw smsDeliveryErrors.off();
  if (!safeEqual(token, expected)) throw smsDeliveryErrors.badToken();
}

/**
 * Records a report on the SMS log's row of the configured gateway with that reference, and says
 * what the row's delivery state is now. A report that arrives twice, or after the final one, changes
 * nothing: `delivered` and a reported failure are final; `pending` only confirms `sent`.
 */
export async function recordDelivery(
  deps: Pick<WifiDeps, 'db' | 'clock' | 'log' | 'config'>,
  report: DeliveryReport,
): Promise<{ id: string; state: string }> {
  const row = await findByReference(deps.db, deps.config.smsProvider, report.reference);
  if (row === undefined) throw smsDeliveryErrors.unknownMessage();
  if (report.outcome === 'pending' || row.status !== 'accepted')
    return { id: row.id, state: stateOf(row.status) };
  const status = report.outcome === 'delivered' ? 'delivered' : 'failed';
  const error = report.outcome === 'failed' ? `not delivered: ${report.reason ?? 'no reason given'}` : null;
  if (!(await markDelivery(deps.db, row.id, { status, error, updated_at: isoNow(deps.clock) }))) {
    // Another report for the same message was recorded in between: its state stands.
    const now = await findByReference(deps.db, deps.config.smsProvider, report.reference);
    return { id: row.id, state: stateOf(now?.status ?? row.status) };
  }
  if (status === 'failed')
    deps.log.info({ event: 'sms.undelivered', sms_id: row.id, reason: report.reason }, 'SMS not delivered');
  return { id: row.id, state: status };
}
