import { isAppError } from '../lib/errors.js';
import { settlePayment, type SettleOutcome } from '../wifi/index.js';
import type { PaymentsDeps } from './deps.js';
import { paymentErrors } from './errors.js';
import type { WebhookHeaders } from './provider.js';

export interface WebhookResult {
  eventId: string | null;
  outcome: SettleOutcome['outcome'] | 'ignored';
}

/**
 * POST /webhooks/{provider}: the configured provider verifies its callback (401/400), then the
 * event is settled in one transaction (422 when it matches no invoice). The caller answers 200
 * only after this returns, i.e. after the commit; a repeat answers 200 and changes nothing.
 * Statuses and bodies: docs/decisions/0013-payment-webhooks.md.
 */
export async function receiveWebhook(
  deps: PaymentsDeps,
  input: { provider: string; headers: WebhookHeaders; rawBody: Buffer },
): Promise<WebhookResult> {
  if (input.provider !== deps.payments.name) throw paymentErrors.unknownProvider();
  const log = deps.log.child({ feature: 'payments', provider: input.provider });
  try {
    const event = await deps.payments.verifyCallback({ headers: input.headers, rawBody: input.rawBody });
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
