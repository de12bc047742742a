import type { PaymentEvent, PaymentGateway } from '../wifi/index.js';

export type WebhookHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

/**
 * A mobile-money provider adapter: the purchase flow's gateway (prompt, status query) plus the
 * verification of its own callback format. Adding a provider = one file implementing this and a
 * line in `createPaymentProvider` (docs/payments.md).
 */
export interface PaymentProvider extends PaymentGateway {
  /**
   * Verifies a callback (401 AppError when its authentication fails, 400 when its payload is
   * unusable) and returns the event it reports, or null when it reports nothing to act on (an
   * "in progress" notice).
   */
  verifyCallback(input: { headers: WebhookHeaders; rawBody: Buffer }): Promise<PaymentEvent | null>;
}

/** The first value of a header, if any. */
export function headerValue(headers: WebhookHeaders, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' ? value : value?.[0];
}
