/**
 * What the Wi-Fi domain needs from outside, declared here and implemented by adapters that
 * app.ts wires in: the payment provider (payments/), the RADIUS CoA client (radius/, later).
 */

/** A payment prompt (USSD push) to send for a new invoice. */
export interface PaymentRequest {
  invoiceId: string;
  invoiceNumber: string;
  amountTzs: number;
  /** E.164 */
  phone: string;
  /** What the guest buys, for the provider's records ("1 hour Wi-Fi"). */
  description: string;
}

export type PromptResult =
  | { ok: true; providerReference: string | null }
  /** refused: the provider answered no; unreachable: no usable answer (network, timeout, 5xx). */
  | { ok: false; reason: 'refused' | 'unreachable'; detail: string };

/** A verified statement from a provider that a payment succeeded or failed. */
export interface PaymentEvent {
  provider: string;
  /** De-duplication key, unique per provider. */
  id: string;
  type: 'payment.succeeded' | 'payment.failed';
  invoiceNumber: string;
  /** null when the provider's message carries no amount (the order fixed it). */
  amountTzs: number | null;
  phone: string | null;
  providerReference: string | null;
}

export type PaymentStatus =
  | { status: 'succeeded' | 'failed'; event: PaymentEvent }
  | { status: 'pending' }
  | { status: 'unknown'; detail: string };

/** The provider as the purchase flow and the reconciliation job see it. */
export interface PaymentGateway {
  /** The provider's name: the `{provider}` of its webhook path. */
  readonly name: string;
  requestPayment(request: PaymentRequest): Promise<PromptResult>;
  /** Asks the provider what became of an invoice (for boxes the callback never reaches). */
  queryStatus(invoice: {
    number: string;
    amountTzs: number;
    providerReference: string | null;
  }): Promise<PaymentStatus>;
}

/** Which access to cut: the RADIUS side finds the grant's live sessions and their routers. */
export interface DisconnectTarget {
  grantId: string;
  username: string;
  reason: string;
}

export type CoaOutcome =
  | { status: 'disconnected'; sessions: number }
  | { status: 'nak'; detail: string }
  | { status: 'no_answer' }
  /** No CoA client is wired (until the RADIUS feature provides one). */
  | { status: 'not_available' };

/** RFC 5176 Disconnect-Request sender (radius/coa.ts implements it). */
export interface CoaClient {
  disconnect(target: DisconnectTarget): Promise<CoaOutcome>;
}

/** The CoA client of a box without the RADIUS feature: nothing to disconnect through. */
export const coaNotAvailable: CoaClient = {
  disconnect: () => Promise.resolve({ status: 'not_available' }),
};
