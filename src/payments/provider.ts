import type {
  PaymentEvent,
  PaymentInvoice,
  PaymentRequest,
  PaymentStatus,
  PromptResult,
  ProviderReadiness,
} from '../wifi/index.js';

export type WebhookHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

/**
 * One mobile-money provider adapter, for one account (the box's, or a site's own): the prompt,
 * the status query and the verification of its own callback format. Adding a provider = one file
 * implementing this and a line in `buildProvider` (gateway.ts; docs/payments.md). The gateway
 * puts the configured adapters in their fallback order and picks each invoice's account.
 */
export interface PaymentProvider {
  /** The provider's name: the `{provider}` of its webhook path and of PAYMENT_PROVIDERS. */
  readonly name: string;
  /** Hosts a guest's device may need before it is logged in (the routers' walled garden). */
  readonly guestHosts: readonly string[];
  /** Cheap (no network): whether its last call reached the provider. */
  readiness(): ProviderReadiness;
  /**
   * Sends the payment prompt. Never throws for a provider answer: classifies it. `deadline`
   * aborts its calls when the guest's purchase request can wait no longer. A failure after the
   * push itself went out unanswered says `maybePrompted`.
   */
  requestPayment(request: PaymentRequest, deadline: AbortSignal): Promise<PromptResult>;
  /** Asks the provider what became of an invoice (for boxes the callback never reaches). */
  queryStatus(invoice: PaymentInvoice): Promise<PaymentStatus>;
  /**
   * null: its callbacks arrive at `/webhooks/<name>`; a string: only at `/webhooks/<name>/<it>`,
   * a secret URL for a provider whose callbacks carry no signature.
   */
  readonly callbackToken: string | null;
  /**
   * The invoice number a callback says it is about, read before anything is verified, only to
   * pick the account that verifies it (a site's own); null when it names none.
   */
  callbackInvoice(rawBody: Buffer): string | null;
  /**
   * Verifies a callback (401 AppError when its authentication fails, 400 when its payload is
   * unusable) and returns the event it reports, or null when it reports nothing to act on (an
   * "in progress" notice). `invoice` is the invoice it names when that is this provider's.
   */
  verifyCallback(input: {
    headers: WebhookHeaders;
    rawBody: Buffer;
    invoice: PaymentInvoice | null;
  }): Promise<PaymentEvent | null>;
}

/** The first value of a header, if any. */
export function headerValue(headers: WebhookHeaders, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' ? value : value?.[0];
}

/** A JSON object body, or null for anything else. */
export function parseJsonObject(raw: Buffer): Record<string, unknown> | null {
  try {
    const doc = JSON.parse(raw.toString('utf8')) as unknown;
    return typeof doc === 'object' && doc !== null && !Array.isArray(doc)
      ? (doc as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/** A JSON scalar as text ('' for anything else). */
export const scalar = (v: unknown): string =>
  typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : '';

/** Connection failures that happen before a request is sent: it never reached the provider. */
const NOT_SENT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/**
 * Whether a failed `fetch` certainly never delivered its request (no connection could be made):
 * a timeout, a reset or a lost answer may have come after the provider acted on it.
 */
export function neverSent(err: unknown): boolean {
  const code = (err as { cause?: { code?: unknown } } | null)?.cause?.code;
  return typeof code === 'string' && NOT_SENT.has(code);
}
