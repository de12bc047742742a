import { invoicesAwaitingPayment } from '../wifi/index.js';
import type { PaymentsDeps } from './deps.js';
import { signWebhook } from './signature.js';
import { receiveWebhook } from './webhook.js';

/**
 * The warning `status` and the admin overview show while the sandbox pays every purchase by
 * itself: the box then gives Wi-Fi away. Undefined when it does not.
 */
export function freeWifiWarning(config: {
  paymentProvider: string;
  paymentProviders: readonly string[] | null;
  sandboxAutopaySeconds: number;
}): string | undefined {
  const provider = config.paymentProviders?.[0] ?? config.paymentProvider;
  if (provider !== 'sandbox' || config.sandboxAutopaySeconds === 0) return undefined;
  return `the sandbox payment provider pays every purchase by itself after ${String(config.sandboxAutopaySeconds)} s (SANDBOX_AUTOPAY_SECONDS): Wi-Fi is given away free. For a real venue set PAYMENT_PROVIDER (selcom or azampay) and SANDBOX_AUTOPAY_SECONDS=0`;
}

/**
 * Sandbox only: pays every invoice pending for SANDBOX_AUTOPAY_SECONDS through the real webhook
 * path: a `payment.succeeded` event in the generic format, genuinely signed with
 * PAYMENT_WEBHOOK_SECRET, verified and settled by the same function the HTTP route calls. The
 * event id is derived from the invoice, so a second run cannot pay twice.
 */
export async function sandboxAutopay(deps: PaymentsDeps): Promise<number> {
  const after = deps.config.sandboxAutopaySeconds;
  if (deps.payments.name !== 'sandbox' || after === 0) return 0;
  let paid = 0;
  for (const invoice of await invoicesAwaitingPayment(deps, after)) {
    const id = `evt_autopay_${invoice.id}`;
    const body = JSON.stringify({
      id,
      type: 'payment.succeeded',
      data: {
        invoice_number: invoice.number,
        amount_tzs: invoice.amount_tzs,
        phone: invoice.phone,
        provider_reference: invoice.provider_reference ?? `SBX-AUTOPAY-${String(invoice.sequence)}`,
      },
    });
    const timestamp = String(Math.floor(deps.clock.now().getTime() / 1000));
    const result = await receiveWebhook(deps, {
      provider: 'sandbox',
      headers: {
        'x-webhook-id': id,
        'x-webhook-timestamp': timestamp,
        'x-webhook-signature': signWebhook(deps.config.paymentWebhookSecret, timestamp, body),
      },
      rawBody: Buffer.from(body, 'utf8'),
    });
    if (result.outcome === 'paid') paid++;
  }
  return paid;
}
