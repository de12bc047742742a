import type { WifiDeps } from './deps.js';
import { networkOf, PROMPT_UNREACHABLE } from './purchases.js';
import {
  expirePending,
  selectInvoices,
  selectInvoicesToReconcile,
  type InvoiceRow,
} from './purchases.store.js';
import { settlePayment } from './settlement.js';

/** Scheduled jobs of the purchase flow (app.ts schedules them; tests call them directly). */

const ago = (now: Date, seconds: number): string => new Date(now.getTime() - seconds * 1000).toISOString();

/** Invoices still pending after INVOICE_EXPIRY (15 min) become `expired`. */
export async function expireInvoices(
  deps: Pick<WifiDeps, 'db' | 'clock' | 'config' | 'log' | 'outcomes'>,
): Promise<number> {
  const now = deps.clock.now();
  const expired = await expirePending(deps.db, ago(now, deps.config.invoiceExpiry), now.toISOString());
  deps.outcomes?.add('expired', expired);
  if (expired > 0) deps.log.info({ event: 'invoices.expired', count: expired }, 'pending invoices expired');
  return expired;
}

/** A callback gets this long to arrive before the poll asks the provider. */
export const POLL_AFTER_SECONDS = 30;
/** Expired invoices stay polled this long after their expiry: a late payment is honoured. */
export const POLL_EXPIRED_FOR_SECONDS = 3600;
const POLL_BATCH = 50;

/**
 * Asks each invoice's own provider about invoices still waiting for payment, recently expired
 * ones, and ones marked failed only because the prompt call timed out or could not connect (the
 * prompt may still have reached the phone), since a box behind NAT may never receive the
 * callback; what it learns goes through settlePayment like a webhook. One invoice's failure is
 * logged and does not stop the others.
 */
export async function reconcilePayments(
  deps: Pick<WifiDeps, 'db' | 'clock' | 'config' | 'payments' | 'log' | 'vault' | 'notifier'>,
): Promise<{ checked: number; settled: number }> {
  const now = deps.clock.now();
  const invoices = await selectInvoicesToReconcile(deps.db, {
    providers: deps.payments.names,
    createdAfter: ago(now, deps.config.invoiceExpiry + POLL_EXPIRED_FOR_SECONDS),
    createdBefore: ago(now, POLL_AFTER_SECONDS),
    uncertainPrefix: PROMPT_UNREACHABLE,
    limit: POLL_BATCH,
  });
  let settled = 0;
  for (const invoice of invoices) {
    try {
      const status = await deps.payments.queryStatus({
        provider: invoice.provider,
        siteId: invoice.site_id,
        number: invoice.number,
        amountTzs: invoice.amount_tzs,
        phone: invoice.phone,
        providerReference: invoice.provider_reference,
        network: networkOf(invoice),
      });
      if (status.status === 'succeeded' || status.status === 'failed') {
        const result = await settlePayment(deps, status.event);
        if (result.outcome === 'paid' || result.outcome === 'failed') settled++;
      }
    } catch (err) {
      deps.log.warn(
        { event: 'payments.poll_failed', invoice_number: invoice.number, err },
        'payment status poll failed',
      );
    }
  }
  return { checked: invoices.length, settled };
}

/** Pending invoices of the current provider created at least `olderThanSeconds` ago (sandbox autopay). */
export function invoicesAwaitingPayment(
  deps: Pick<WifiDeps, 'db' | 'clock' | 'payments'>,
  olderThanSeconds: number,
): Promise<InvoiceRow[]> {
  const now = deps.clock.now();
  return selectInvoices(deps.db, {
    statuses: ['pending'],
    provider: deps.payments.name,
    createdAfter: '',
    createdBefore: ago(now, olderThanSeconds),
    limit: 100,
  });
}
