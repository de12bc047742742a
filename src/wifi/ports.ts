/**
 * What the Wi-Fi domain needs from outside, declared here and implemented by adapters that
 * app.ts wires in: the payment provider (payments/), the RADIUS CoA client (radius/, later).
 */

import type { MobileNetwork } from './networks.js';

/** A payment prompt (USSD push) to send for a new invoice. */
export interface PaymentRequest {
  invoiceId: string;
  invoiceNumber: string;
  amountTzs: number;
  /** E.164 */
  phone: string;
  /** What the guest buys, for the provider's records ("1 hour Wi-Fi"). */
  description: string;
  /** The invoice's site: a site may have its own provider account. */
  siteId: string;
  /** The mobile-money network the guest named (a ported number); null: the provider finds it. */
  network?: MobileNetwork | null;
}

export type PromptResult =
  | { ok: true; providerReference: string | null }
  /**
   * refused: the provider answered no; unreachable: no usable answer (network, timeout, 5xx).
   * `maybePrompted`: the push itself went unanswered, so it may still reach the phone; the
   * purchase must then stay with this provider (no fallback to the next one).
   */
  | { ok: false; reason: 'refused' | 'unreachable'; detail: string; maybePrompted?: boolean };

/** An invoice as a provider is asked about it (status query, callback confirmation). */
export interface PaymentInvoice {
  number: string;
  amountTzs: number;
  /** E.164 */
  phone: string;
  providerReference: string | null;
  /** The network the guest named when buying, if any. */
  network?: MobileNetwork | null;
}

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

/**
 * Whether the provider can take payments, as far as this box knows without asking it: its last
 * call (prompt or status query) did not fail to reach it. (A provider without its credentials
 * stops start-up, so a running one has them.)
 */
export type ProviderReadiness = { ready: true } | { ready: false; reason: 'unreachable' };

/**
 * The payment providers as the purchase flow and the reconciliation job see them: one, or several
 * in a fallback order (PAYMENT_PROVIDERS), each possibly with per-site accounts.
 */
export interface PaymentGateway {
  /** The first provider's name: a new invoice is its until a prompt goes elsewhere. */
  readonly name: string;
  /** Every configured provider, in fallback order (the first is `name`). */
  readonly names: readonly string[];
  /** Cheap (no network): for the portal config's readiness; ready while any provider is. */
  readiness(): ProviderReadiness;
  /**
   * Hosts a guest's device may need before it is logged in (a checkout page the provider shows),
   * for the routers' walled garden (DESIGN.md §4.7); none for a push to the phone only.
   */
  readonly guestHosts: readonly string[];
  /**
   * Sends the prompt through the first provider that takes it; `provider` names the one that
   * answered last (the one that took it, or the last one that failed).
   */
  requestPayment(request: PaymentRequest): Promise<PromptResult & { provider: string }>;
  /** Asks the invoice's own provider what became of it (for boxes the callback never reaches). */
  queryStatus(invoice: PaymentInvoice & { provider: string; siteId: string }): Promise<PaymentStatus>;
}

/**
 * One live RADIUS session to cut, with the identifiers RFC 5176 §3 asks for and the router's
 * CoA address (`radius_client_ip:coa_port`, which may differ from its RADIUS source address).
 */
export interface SessionTarget {
  sessionId: string;
  deviceId: string;
  nasId: string;
  username: string;
  acctSessionId: string;
  framedIp: string | null;
  clientIp: string;
  coaPort: number;
}

/** What a router answered to one Disconnect-Request. */
export type DisconnectAnswer =
  | { answer: 'ack' }
  /** Error-Cause by name (RFC 5176 §3.5) when the NAK carried one. */
  | { answer: 'nak'; errorCause: string | null }
  /** No valid reply after every retry. */
  | { answer: 'no_answer' }
  /** No CoA client is wired. */
  | { answer: 'not_available' };

/**
 * What a live session may use from now on, for a CoA-Request that changes it without cutting it
 * (a plan's new speed applied to live sessions). Routers count some limits from the session's
 * start (CoovaChilli: Session-Timeout and the octet limits), so both sides are given.
 */
export interface SessionTerms {
  /** Seconds since the session started, as far as this box knows. */
  sessionSeconds: number;
  /** Seconds left on the session's grant (> 0). */
  secondsLeft: number;
  /** Octets the session has used so far (its last accounting report). */
  sessionOctets: number;
  /** What is left of the grant's data allowance, or null when it has none. */
  dataLeftBytes: number | null;
  /** Speed limits in kbit/s (download: to the guest), null: none. */
  downloadKbps: number | null;
  uploadKbps: number | null;
}

/**
 * The RFC 5176 sender (radius/coa.ts implements it): Disconnect-Request to end a session,
 * CoA-Request to change its terms; each retries, then reports what the router answered (a CoA
 * answer uses the same shape: ACK, NAK with its Error-Cause, or nothing).
 */
export interface CoaClient {
  disconnect(target: SessionTarget): Promise<DisconnectAnswer>;
  change(target: SessionTarget, terms: SessionTerms): Promise<DisconnectAnswer>;
  /**
   * A router was archived or unarchived: forget what is cached about its NAS id, so the next
   * packet from it is judged by what the database holds now (absent where nothing is cached).
   */
  forgetRouter?(nasId: string): void;
  /**
   * Whether a router's CoA port answers (`hotspot-ctl doctor`): a Disconnect-Request for a
   * made-up session, which no router can match. `unverified`: something answered, but not signed
   * with the router's secret.
   */
  probe?(router: { nasId: string; clientIp: string; coaPort: number }): Promise<CoaProbeAnswer>;
}

export type CoaProbeAnswer = DisconnectAnswer | { answer: 'unverified' };

/** A box without the RADIUS feature has nothing to disconnect through. */
export const coaNotAvailable: CoaClient = {
  disconnect: () => Promise.resolve({ answer: 'not_available' }),
  change: () => Promise.resolve({ answer: 'not_available' }),
};
