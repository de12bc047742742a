/**
 * Payment outcomes decided in this process since it started, for GET /metrics
 * (`hotspot_payments_total{outcome}`). Counted as they happen, after the commit, rather than read
 * from the invoices' statuses: an invoice that expired or failed may still be paid later (a late
 * payment is honoured), so a count of statuses could go down, which a Prometheus counter must
 * never do (docs/decisions/0050).
 */
export const PAYMENT_OUTCOMES = ['paid', 'failed', 'expired'] as const;
export type PaymentOutcome = (typeof PAYMENT_OUTCOMES)[number];

export class PaymentOutcomes {
  readonly #counts = new Map<PaymentOutcome, number>(PAYMENT_OUTCOMES.map((o) => [o, 0]));

  add(outcome: PaymentOutcome, n = 1): void {
    this.#counts.set(outcome, (this.#counts.get(outcome) ?? 0) + n);
  }

  get(outcome: PaymentOutcome): number {
    return this.#counts.get(outcome) ?? 0;
  }
}
