import type { Db } from '../db/index.js';
import { BLANKED } from '../notify/types.js';
import { formatDuration } from '../lib/duration.js';
import { uuid } from '../lib/crypto.js';
import { isUniqueViolation } from './db-errors.js';
import type { WifiDeps } from './deps.js';
import { wifiErrors } from './errors.js';
import { issue, type GrantRow } from './grants.js';
import type { PaymentEvent } from './ports.js';
import { findInvoice, findInvoiceByNumber, updateInvoiceIf, type InvoiceRow } from './purchases.store.js';
import { findPaymentEvent, insertPayment, insertPaymentEvent } from './settlement.store.js';

export type SettleOutcome =
  /** The event was handled before: nothing changed. */
  | { outcome: 'duplicate' }
  /** The invoice is now paid and its grant issued. */
  | { outcome: 'paid'; invoice: InvoiceRow; grant: GrantRow; password: string }
  /** Success for an invoice already paid (through another event or the status poll). */
  | { outcome: 'already_paid'; invoice: InvoiceRow }
  | { outcome: 'failed'; invoice: InvoiceRow }
  /** Failure reported for an invoice that is no longer pending. */
  | { outcome: 'ignored'; invoice: InvoiceRow };

type Deps = Pick<WifiDeps, 'db' | 'clock' | 'vault' | 'log' | 'notifier' | 'config' | 'outcomes'>;

/**
 * Applies a verified payment event in one transaction: record the event id (a repeat changes
 * nothing), match the invoice by number, provider and amount (422 otherwise), then
 * pending/expired/failed → paid + grant + payment, or pending → failed. A success is honoured
 * even for an expired invoice: the guest's money was taken. The guest gets the credentials by SMS
 * after the commit.
 */
export async function settlePayment(deps: Deps, event: PaymentEvent): Promise<SettleOutcome> {
  let result: SettleOutcome;
  try {
    result = await deps.db.transaction().execute((tx) => settleIn(tx, deps, event));
  } catch (err) {
    // Another connection recorded the same event between our check and insert.
    if (isUniqueViolation(err) && (await findPaymentEvent(deps.db, event.provider, event.id)))
      result = { outcome: 'duplicate' };
    else throw err;
  }
  deps.log.info(
    {
      event: 'payment.event',
      provider: event.provider,
      event_id: event.id,
      type: event.type,
      invoice_number: event.invoiceNumber,
      outcome: result.outcome,
    },
    'payment event handled',
  );
  if (result.outcome === 'paid' || result.outcome === 'failed') deps.outcomes?.add(result.outcome);
  if (result.outcome === 'paid') await sendCredentials(deps, result.invoice, result.grant, result.password);
  return result;
}

async function settleIn(tx: Db, deps: Deps, event: PaymentEvent): Promise<SettleOutcome> {
  if (await findPaymentEvent(tx, event.provider, event.id)) return { outcome: 'duplicate' };
  const invoice = await findInvoiceByNumber(tx, event.invoiceNumber);
  // A provider settles only the invoices whose prompt it took (PAYMENT_PROVIDERS may name several).
  if (invoice?.provider !== event.provider) throw wifiErrors.paymentInvoiceUnknown();
  if (event.amountTzs !== null && event.amountTzs !== invoice.amount_tzs)
    throw wifiErrors.paymentAmountMismatch();
  const now = deps.clock.now();
  const result =
    event.type === 'payment.succeeded'
      ? await markPaid(tx, deps, invoice, now, {
          provider: event.provider,
          providerReference: event.providerReference,
          phone: event.phone,
          eventId: event.id,
        })
      : await markFailed(tx, invoice, now.toISOString());
  await insertPaymentEvent(tx, {
    id: uuid(),
    provider: event.provider,
    event_id: event.id,
    type: event.type,
    invoice_number: event.invoiceNumber,
    outcome: result.outcome,
    received_at: now.toISOString(),
  });
  return result;
}

/** How an invoice was paid, for its payment row. */
export interface PaymentFacts {
  provider: string;
  providerReference: string | null;
  phone: string | null;
  /** The provider's event id (or another unique mark of this payment). */
  eventId: string;
}

/**
 * pending/expired/failed → paid inside `tx`: the grant issued and the payment recorded (of the
 * invoice's channel and amount). Every way an invoice gets paid comes through here: a provider's
 * event, a counter sale, a staff member marking it paid by hand.
 */
export async function markPaid(
  tx: Db,
  deps: Pick<WifiDeps, 'vault'>,
  invoice: InvoiceRow,
  now: Date,
  payment: PaymentFacts,
): Promise<SettleOutcome> {
  const paidAt = now.toISOString();
  const changed = await updateInvoiceIf(tx, invoice.id, ['pending', 'expired', 'failed'], {
    status: 'paid',
    paid_at: paidAt,
    provider_reference: payment.providerReference ?? invoice.provider_reference,
    failure_reason: null,
    updated_at: paidAt,
  });
  if (!changed) return { outcome: 'already_paid', invoice };
  const { grant, password } = await issue(tx, deps, { invoice, paidAt: now });
  await insertPayment(tx, {
    id: uuid(),
    invoice_id: invoice.id,
    channel: invoice.channel,
    provider: payment.provider,
    provider_reference: payment.providerReference,
    amount_tzs: invoice.amount_tzs,
    phone: payment.phone,
    event_id: payment.eventId,
    paid_at: paidAt,
    kind: 'sale',
  });
  return { outcome: 'paid', invoice: (await findInvoice(tx, invoice.id)) ?? invoice, grant, password };
}

async function markFailed(tx: Db, invoice: InvoiceRow, now: string): Promise<SettleOutcome> {
  const changed = await updateInvoiceIf(tx, invoice.id, ['pending'], {
    status: 'failed',
    failure_reason: 'payment failed at the provider',
    updated_at: now,
  });
  return changed
    ? { outcome: 'failed', invoice: { ...invoice, status: 'failed' } }
    : { outcome: 'ignored', invoice };
}

/** The guest's credentials by SMS; a failed send is logged by the notifier, never thrown. */
export async function sendCredentials(
  deps: Pick<WifiDeps, 'notifier' | 'config'>,
  invoice: InvoiceRow,
  grant: GrantRow,
  password: string,
): Promise<void> {
  const text = (secret: string) =>
    `${deps.config.serviceName} Wi-Fi: username ${grant.username} password ${secret}, ` +
    `valid ${formatDuration(invoice.duration_seconds)}. Invoice ${invoice.number}.`;
  await deps.notifier.sendSms({
    to: invoice.phone,
    message: text(password),
    // The SMS log keeps it with the password blanked.
    log: { kind: 'credentials', text: text(BLANKED), siteId: invoice.site_id },
  });
}
