import { safeEqual } from '../lib/crypto.js';
import { isAppError } from '../lib/errors.js';
import {
  invoiceByNumber,
  networkOf,
  settlePayment,
  type InvoiceRow,
  type SettleOutcome,
} from '../wifi/index.js';
import type { PaymentsDeps } from './deps.js';
import { paymentErrors } from './errors.js';
import type { PaymentProvider, WebhookHeaders } from './provider.js';

export interface WebhookResult {
  eventId: string | null;
  outcome: SettleOutcome['outcome'] | 'ignored';
}

/**
 * POST /webhooks/{provider}[/{token}]: a configured provider's callback (404 for any other
 * name). A provider whose callbacks are unsigned takes them only at its secret URL (401 for a
 * missing or wrong token). The callback is verified with the account of the invoice it names (a
 * site's own, else the box's; 401/400), then the event is settled in one transaction (422 when it
 * matches none of this provider's invoices). The caller answers 200 only after this returns, i.e.
 * after the commit; a repeat answers 200 and changes nothing. Statuses and bodies:
 * docs/decisions/0013-payment-webhooks.md, 0032-azampay-and-fallback.md.
 */
export async function receiveWebhook(
  deps: PaymentsDeps,
  input: { provider: string; token?: string; headers: WebhookHeaders; rawBody: Buffer },
): Promise<WebhookResult> {
  const base = deps.payments.provider(input.provider);
  if (!base) throw paymentErrors.unknownProvider();
  if (base.callbackToken === null && input.token !== undefined) throw paymentErrors.unknownProvider();
  const log = deps.log.child({ feature: 'payments', provider: input.provider });
  try {
    if (base.callbackToken !== null && !safeEqual(input.token ?? '', base.callbackToken))
      throw paymentErrors.badToken();
    const invoice = await invoiceOf(deps, base, input.rawBody);
    const adapter = invoice ? ((await deps.payments.forSite(base.name, invoice.site_id)) ?? base) : base;
    const event = await adapter.verifyCallback({
      headers: input.headers,
      rawBody: input.rawBody,
      invoice: invoice
        ? {
            number: invoice.number,
            amountTzs: invoice.amount_tzs,
            phone: invoice.phone,
            providerReference: invoice.provider_reference,
            network: networkOf(invoice),
          }
        : null,
    });
    if (!event) return { eventId: null, outcome: 'ignored' };
    const result = await settlePayment(deps, event);
    return { eventId: event.id, outcome: result.outcome };
  } catch (err) {
    if (isAppError(err) && err.status < 500)
      log.warn(
        { event: 'payments.webhook_rejected', status: err.status, reason: err.code },
        'webhook rejected',
      );
    throw err;
  }
}

/** The invoice a callback names, when it is this provider's (another's is none of its business). */
async function invoiceOf(
  deps: PaymentsDeps,
  provider: PaymentProvider,
  rawBody: Buffer,
): Promise<InvoiceRow | undefined> {
  const number = provider.callbackInvoice(rawBody);
  const invoice = number === null ? undefined : await invoiceByNumber(deps, number);
  return invoice?.provider === provider.name ? invoice : undefined;
}
