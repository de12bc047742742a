import type { Clock } from '../lib/clock.js';
import { randomString } from '../lib/crypto.js';
import type { Logger } from '../lib/log.js';
import type { Config } from '../config/index.js';
import type { PaymentEvent, PaymentRequest, PaymentStatus, PromptResult } from '../wifi/index.js';
import { paymentErrors } from './errors.js';
import { parseGenericEvent } from './generic-event.js';
import {
  headerValue,
  parseJsonObject,
  scalar,
  type PaymentProvider,
  type WebhookHeaders,
} from './provider.js';
import { verifyWebhookSignature } from './signature.js';

/**
 * The sandbox provider: accepts every prompt (nothing reaches a phone) and takes payment events
 * in the generic signed format at /webhooks/sandbox, signed with PAYMENT_WEBHOOK_SECRET. With
 * SANDBOX_AUTOPAY_SECONDS the autopay job (autopay.ts) pays pending invoices through that path.
 */
export function createSandboxProvider(deps: {
  config: Pick<Config, 'paymentWebhookSecret'>;
  clock: Clock;
  log: Logger;
}): PaymentProvider {
  const log = deps.log.child({ feature: 'payments', provider: 'sandbox' });
  return {
    name: 'sandbox',
    guestHosts: [],

    // Nothing to reach, and its webhook secret is always there (configured or generated).
    readiness: () => ({ ready: true }),

    requestPayment(request: PaymentRequest): Promise<PromptResult> {
      log.info(
        { event: 'sandbox.prompt', invoice_number: request.invoiceNumber, amount_tzs: request.amountTzs },
        'sandbox payment prompt (no phone is asked)',
      );
      return Promise.resolve({ ok: true, providerReference: `SBX${randomString('0123456789ABCDEF', 12)}` });
    },

    queryStatus(): Promise<PaymentStatus> {
      // The sandbox keeps no remote state: only webhook events pay its invoices.
      return Promise.resolve({ status: 'pending' });
    },

    callbackToken: null,

    callbackInvoice(rawBody) {
      const data = parseJsonObject(rawBody)?.data;
      return typeof data === 'object' && data !== null
        ? scalar((data as Record<string, unknown>).invoice_number) || null
        : null;
    },

    verifyCallback({
      headers,
      rawBody,
    }: {
      headers: WebhookHeaders;
      rawBody: Buffer;
    }): Promise<PaymentEvent> {
      const verdict = verifyWebhookSignature({
        secret: deps.config.paymentWebhookSecret,
        signature: headerValue(headers, 'x-webhook-signature'),
        timestamp: headerValue(headers, 'x-webhook-timestamp'),
        rawBody,
        now: deps.clock.now(),
      });
      if (verdict === 'bad_timestamp') throw paymentErrors.badTimestamp();
      if (verdict !== 'ok') throw paymentErrors.badSignature();
      return Promise.resolve(parseGenericEvent('sandbox', rawBody, headerValue(headers, 'x-webhook-id')));
    },
  };
}
