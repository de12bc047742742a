import type { Config } from '../config/index.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/log.js';
import {
  networkOfPhone,
  wifiErrors,
  type MobileNetwork,
  type PaymentEvent,
  type PaymentInvoice,
  type PaymentRequest,
  type PaymentStatus,
  type PromptResult,
} from '../wifi/index.js';
import { paymentErrors } from './errors.js';
import { neverSent, parseJsonObject, scalar, type PaymentProvider } from './provider.js';

/**
 * AzamPay (research/payments-sms.md §1.2): a token from the authenticator (app name, client id,
 * client secret), then the MNO checkout (a USSD push to the guest's phone) and the transaction
 * status query, each with `Authorization: Bearer <token>` and `X-API-KEY`. AzamPay's callback
 * carries no signature: it is accepted only at the secret URL `/webhooks/azampay/<token>`, and
 * then only as a hint: what settles is the status query we make ourselves
 * (docs/decisions/0032-azampay-and-fallback.md).
 */

export type AzamPayConfig = Pick<Config, 'azampayAuthUrl' | 'azampayCheckoutUrl'> & {
  azampayAppName: string;
  azampayClientId: string;
  azampayClientSecret: string;
  azampayApiKey: string;
  azampayCallbackToken: string;
};

/** The `provider` of an MNO checkout: the guest's mobile-money network. */
export type AzamPayOperator = 'Airtel' | 'Tigo' | 'Halopesa' | 'Azampesa' | 'Mpesa';

/** AzamPay's `provider` for each network. */
const OPERATORS: Readonly<Record<MobileNetwork, AzamPayOperator>> = {
  vodacom: 'Mpesa',
  tigo: 'Tigo',
  airtel: 'Airtel',
  halotel: 'Halopesa',
  azampesa: 'Azampesa',
};

/**
 * The AzamPay operator of a payment: the network the guest named, else the one the number's prefix
 * suggests (a guess: numbers move between networks); null when neither gives one, which AzamPay
 * would refuse, so the next provider in the order gets it.
 */
export function azampayOperator(phone: string, network: MobileNetwork | null = null): AzamPayOperator | null {
  const chosen = network ?? networkOfPhone(phone);
  return chosen === null ? null : OPERATORS[chosen];
}

const TIMEOUT_MS = 20_000;
/** AzamPay's `expire` comes as a date, epoch seconds or a lifetime; used within these bounds. */
const TOKEN_MIN_S = 60;
const TOKEN_MAX_S = 86_400;
const TOKEN_DEFAULT_S = 3540;
/** A token is replaced this long before it expires. */
const TOKEN_MARGIN_S = 60;

const PAID = new Set(['success', 'successful', 'succeeded', 'completed', 'complete', 'paid']);
const FAILED = new Set([
  'failed',
  'failure',
  'fail',
  'cancelled',
  'canceled',
  'rejected',
  'expired',
  'declined',
]);

type Json = Record<string, unknown>;

/** An HTTP exchange: its status and JSON object body (null when it had none), or no answer. */
type Exchange =
  { answered: true; status: number; body: Json | null } | { answered: false; detail: string; sent: boolean };

type TokenResult =
  { ok: true; token: string } | { ok: false; reason: 'refused' | 'unreachable'; detail: string };

/** Seconds a token lives, from `data.expire` as AzamPay sends it (clamped; a default when unreadable). */
export function tokenLifetime(expire: unknown, now: Date): number {
  const text = scalar(expire).trim();
  let seconds = TOKEN_DEFAULT_S;
  if (/^\d+$/.test(text)) {
    const n = Number(text);
    // A lifetime, epoch seconds, or epoch milliseconds.
    seconds = n < 1e9 ? n : n < 1e12 ? n - now.getTime() / 1000 : (n - now.getTime()) / 1000;
  } else if (text !== '' && !Number.isNaN(Date.parse(text))) {
    seconds = (Date.parse(text) - now.getTime()) / 1000;
  }
  return Math.min(TOKEN_MAX_S, Math.max(TOKEN_MIN_S, Math.floor(seconds)));
}

export function createAzamPayProvider(deps: {
  config: AzamPayConfig;
  clock: Clock;
  log: Logger;
}): PaymentProvider {
  const { config } = deps;
  const log = deps.log.child({ feature: 'payments', provider: 'azampay' });
  let token: { value: string; renewAt: number } | null = null;
  /** Whether the last call failed to reach AzamPay (network, timeout, 5xx): readiness says so. */
  let unreachable = false;

  async function exchange(
    method: 'GET' | 'POST',
    url: string,
    headers: Record<string, string>,
    body: Json | null,
    deadline?: AbortSignal,
  ): Promise<Exchange> {
    if (deadline?.aborted) return { answered: false, detail: reasonOf(deadline), sent: false };
    try {
      const response = await fetch(url, {
        method,
        headers: { Accept: 'application/json', 'X-API-KEY': config.azampayApiKey, ...headers },
        ...(body === null ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.any([AbortSignal.timeout(TIMEOUT_MS), ...(deadline ? [deadline] : [])]),
      });
      // The sandbox has been seen answering 200 with an empty body: that is no answer.
      const text = await response.text();
      return { answered: true, status: response.status, body: parseJsonObject(Buffer.from(text, 'utf8')) };
    } catch (err) {
      return { answered: false, detail: (err as Error).message, sent: !neverSent(err) };
    }
  }

  function note(path: string, outcome: { reason: string; detail: string }): void {
    unreachable = outcome.reason === 'unreachable';
    log.warn(
      { event: 'azampay.call_failed', path, reason: outcome.reason, detail: outcome.detail },
      'AzamPay call failed',
    );
  }

  /** A bearer token: the one held while it is fresh, else a new one from the authenticator. */
  async function accessToken(deadline?: AbortSignal): Promise<TokenResult> {
    const now = deps.clock.now();
    if (token && now.getTime() < token.renewAt) return { ok: true, token: token.value };
    const path = '/AppRegistration/GenerateToken';
    const answer = await exchange(
      'POST',
      `${config.azampayAuthUrl}${path}`,
      { 'Content-Type': 'application/json' },
      {
        appName: config.azampayAppName,
        clientId: config.azampayClientId,
        clientSecret: config.azampayClientSecret,
      },
      deadline,
    );
    const data = answer.answered ? answer.body?.data : undefined;
    const value = typeof data === 'object' && data !== null ? scalar((data as Json).accessToken) : '';
    let result: TokenResult;
    if (!answer.answered) result = { ok: false, reason: 'unreachable', detail: answer.detail };
    else if (answer.status >= 500 || answer.body === null)
      result = { ok: false, reason: 'unreachable', detail: `HTTP ${String(answer.status)}` };
    else if (answer.status >= 300 || answer.body.success === false || value === '')
      result = { ok: false, reason: 'refused', detail: describe(answer.status, answer.body) };
    else {
      const lifetime = tokenLifetime((data as Json).expire, now);
      token = { value, renewAt: now.getTime() + (lifetime - TOKEN_MARGIN_S) * 1000 };
      unreachable = false;
      return { ok: true, token: value };
    }
    note(path, result);
    return result;
  }

  /**
   * A call to the checkout API with a token; a 401 (the token expired early, or was revoked) gets
   * one new token and one more try. The token's failure when none could be had.
   */
  async function authorized(
    method: 'GET' | 'POST',
    path: string,
    body: Json | null,
    deadline?: AbortSignal,
  ): Promise<{ ok: true; answer: Exchange } | Extract<TokenResult, { ok: false }>> {
    for (let attempt = 0; ; attempt++) {
      const auth = await accessToken(deadline);
      if (!auth.ok) return auth;
      const answer = await exchange(
        method,
        `${config.azampayCheckoutUrl}${path}`,
        {
          Authorization: `Bearer ${auth.token}`,
          ...(body === null ? {} : { 'Content-Type': 'application/json' }),
        },
        body,
        deadline,
      );
      if (!answer.answered || answer.status !== 401 || attempt > 0) return { ok: true, answer };
      token = null;
    }
  }

  /** The MNO checkout: a USSD push to the guest's phone. */
  async function prompt(request: PaymentRequest, deadline: AbortSignal): Promise<PromptResult> {
    const operator = azampayOperator(request.phone, request.network ?? null);
    if (operator === null)
      return { ok: false, reason: 'refused', detail: 'no AzamPay mobile-money network for this number' };
    const path = '/azampay/mno/checkout';
    const call = await authorized(
      'POST',
      path,
      {
        accountNumber: request.phone.replace(/^\+/, ''),
        amount: String(request.amountTzs),
        currency: 'TZS',
        externalId: request.invoiceNumber,
        provider: operator,
      },
      deadline,
    );
    // No token: nothing was pushed.
    if (!call.ok) return { ...call, maybePrompted: false };
    const { answer } = call;
    let result: PromptResult;
    if (!answer.answered)
      result = { ok: false, reason: 'unreachable', detail: answer.detail, maybePrompted: answer.sent };
    else if (answer.status >= 500 || answer.body === null)
      result = {
        ok: false,
        reason: 'unreachable',
        detail: `HTTP ${String(answer.status)}`,
        maybePrompted: true,
      };
    else if (answer.status >= 300 || answer.body.success !== true)
      result = {
        ok: false,
        reason: 'refused',
        detail: describe(answer.status, answer.body),
        maybePrompted: false,
      };
    else {
      unreachable = false;
      return { ok: true, providerReference: scalar(answer.body.transactionId) || null };
    }
    note(path, result);
    return result;
  }

  /** What AzamPay says of the transaction `reference`, the checkout's transactionId. */
  async function statusOf(invoice: PaymentInvoice, reference: string | null): Promise<PaymentStatus> {
    const operator = azampayOperator(invoice.phone, invoice.network ?? null);
    if (reference === null)
      return { status: 'unknown', detail: 'no AzamPay transaction id for this invoice' };
    if (operator === null) return { status: 'unknown', detail: 'no AzamPay network for this number' };
    const query = new URLSearchParams({ pgReferenceId: reference, bankName: operator });
    const path = '/azampay/gettransactionstatus';
    const call = await authorized('GET', `${path}?${query.toString()}`, null);
    if (!call.ok) return { status: 'unknown', detail: call.detail };
    const { answer } = call;
    if (!answer.answered || answer.status >= 500 || answer.body === null) {
      const detail = answer.answered ? `HTTP ${String(answer.status)}` : answer.detail;
      note(path, { reason: 'unreachable', detail });
      return { status: 'unknown', detail };
    }
    unreachable = false;
    if (answer.status >= 300 || answer.body.success === false)
      return { status: 'unknown', detail: describe(answer.status, answer.body) };
    const word = scalar(answer.body.data).trim().toLowerCase();
    const type = PAID.has(word) ? 'payment.succeeded' : FAILED.has(word) ? 'payment.failed' : null;
    if (type === null) return { status: 'pending' };
    const event: PaymentEvent = {
      provider: 'azampay',
      // The same for the callback and the poll, and per AzamPay transaction: one payment, one event.
      id: `${reference}:${type === 'payment.succeeded' ? 'paid' : 'failed'}`,
      type,
      invoiceNumber: invoice.number,
      // The checkout fixed the amount; the status answer carries none.
      amountTzs: null,
      phone: invoice.phone,
      providerReference: reference,
    };
    return { status: type === 'payment.succeeded' ? 'succeeded' : 'failed', event };
  }

  return {
    name: 'azampay',
    // A push to the phone: the guest's device needs no AzamPay page.
    guestHosts: [],
    readiness: () => (unreachable ? { ready: false, reason: 'unreachable' } : { ready: true }),
    requestPayment: prompt,
    queryStatus: (invoice) => statusOf(invoice, invoice.providerReference),
    callbackToken: config.azampayCallbackToken,
    callbackInvoice: (rawBody) => scalar(parseJsonObject(rawBody)?.utilityref) || null,

    /**
     * The URL's token was checked by the webhook route. The body only says which invoice to ask
     * about: its status comes from our own query, with the transaction id our checkout got (the
     * callback's `reference` only when the checkout's answer was lost).
     */
    async verifyCallback({ rawBody, invoice }) {
      const body = parseJsonObject(rawBody);
      if (!body || scalar(body.utilityref) === '') throw paymentErrors.invalidPayload();
      if (invoice === null) throw wifiErrors.paymentInvoiceUnknown();
      const status = await statusOf(invoice, invoice.providerReference ?? (scalar(body.reference) || null));
      if (status.status === 'unknown') {
        log.warn(
          { event: 'azampay.callback_unconfirmed', invoice_number: invoice.number, detail: status.detail },
          'AzamPay callback not confirmed',
        );
        throw paymentErrors.unconfirmed();
      }
      return status.status === 'pending' ? null : status.event;
    },
  };
}

/** AzamPay's own words on a refusal: `message`, `title`, or field `errors`, with the HTTP status. */
function describe(status: number, body: Json | null): string {
  const errors = body?.errors;
  const fields = typeof errors === 'object' && errors !== null ? Object.keys(errors).join(', ') : '';
  const words = scalar(body?.message) || scalar(body?.msg) || scalar(body?.title);
  return [`HTTP ${String(status)}`, words, fields && `(${fields})`].filter(Boolean).join(' ');
}

const reasonOf = (signal: AbortSignal): string =>
  signal.reason instanceof Error ? signal.reason.message : 'aborted';
