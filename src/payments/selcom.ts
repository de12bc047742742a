import { createHmac } from 'node:crypto';
import type { Config } from '../config/index.js';
import type { Clock } from '../lib/clock.js';
import { safeEqual } from '../lib/crypto.js';
import type { Logger } from '../lib/log.js';
import type { PaymentEvent, PaymentRequest, PaymentStatus, PromptResult } from '../wifi/index.js';
import { paymentErrors } from './errors.js';
import {
  headerValue,
  neverSent,
  parseJsonObject,
  scalar,
  type PaymentProvider,
  type WebhookHeaders,
} from './provider.js';

/**
 * Selcom Checkout API (research/payments-sms.md §1.3): create-order-minimal + wallet-payment
 * (USSD push), order-status for the poll, HMAC-signed callbacks. Every request and callback is
 * signed: `Digest` = base64 HMAC-SHA256(api secret, "timestamp=<Timestamp>&f1=v1&…") over the
 * fields listed in `Signed-Fields`, in that order.
 */

export type SelcomConfig = Pick<Config, 'selcomBaseUrl' | 'publicBaseUrl' | 'mailFrom' | 'serviceName'> & {
  selcomApiKey: string;
  selcomApiSecret: string;
  selcomVendor: string;
};

type Fields = Readonly<Record<string, string | number>>;

const TIMEOUT_MS = 20_000;
/** Result codes that mean "accepted" (000 success, 111/927 in progress, 999 ambiguous: poll). */
const ACCEPTED = new Set(['000', '111', '927', '999']);
const PAID = new Set(['COMPLETED', 'SUCCESS', 'COMPLETE']);
const FAILED = new Set([
  'CANCELLED',
  'CANCELED',
  'USERCANCELED',
  'USERCANCELLED',
  'REJECTED',
  'FAIL',
  'FAILED',
  'EXPIRED',
]);
/** Callback fields we act on: they must be covered by the signature. */
const REQUIRED_SIGNED = ['order_id', 'payment_status'];

/** base64 HMAC-SHA256 over "timestamp=<ts>&k=v&…" in the given field order. */
export function selcomDigest(
  secret: string,
  timestamp: string,
  fields: readonly [string, unknown][],
): string {
  const data = [`timestamp=${timestamp}`, ...fields.map(([k, v]) => `${k}=${scalar(v)}`)].join('&');
  return createHmac('sha256', secret).update(data).digest('base64');
}

/** ISO 8601 with a numeric offset, as Selcom wants it: 2026-01-15T09:00:00+00:00. */
const selcomTimestamp = (now: Date): string => now.toISOString().replace(/\.\d{3}Z$/, '+00:00');

interface SelcomAnswer {
  resultcode?: unknown;
  result?: unknown;
  message?: unknown;
  reference?: unknown;
  data?: unknown;
}

/** `sent`: the request may have reached Selcom (it answered, or the connection failed after sending). */
type CallResult =
  | { ok: true; body: SelcomAnswer }
  | { ok: false; reason: 'refused' | 'unreachable'; detail: string; sent: boolean };

export function createSelcomProvider(deps: {
  config: SelcomConfig;
  clock: Clock;
  log: Logger;
}): PaymentProvider {
  const { config } = deps;
  const log = deps.log.child({ feature: 'payments', provider: 'selcom' });
  const authorization = `SELCOM ${Buffer.from(config.selcomApiKey, 'utf8').toString('base64')}`;

  /** Whether the last call failed to reach Selcom (network, timeout, 5xx): readiness says so. */
  let unreachable = false;

  async function call(
    method: 'GET' | 'POST',
    path: string,
    fields: Fields,
    deadline?: AbortSignal,
  ): Promise<CallResult> {
    const result = await send(method, path, fields, deadline);
    unreachable = !result.ok && result.reason === 'unreachable';
    if (!result.ok)
      log.warn(
        { event: 'selcom.call_failed', path, reason: result.reason, detail: result.detail },
        'Selcom call failed',
      );
    return result;
  }

  async function send(
    method: 'GET' | 'POST',
    path: string,
    fields: Fields,
    deadline?: AbortSignal,
  ): Promise<CallResult> {
    const timestamp = selcomTimestamp(deps.clock.now());
    const entries = Object.entries(fields);
    const query =
      method === 'GET'
        ? `?${new URLSearchParams(entries.map(([k, v]): [string, string] => [k, String(v)])).toString()}`
        : '';
    if (deadline?.aborted)
      return { ok: false, reason: 'unreachable', detail: reasonOf(deadline), sent: false };
    let response: Response;
    try {
      response = await fetch(`${config.selcomBaseUrl}${path}${query}`, {
        method,
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json',
          Authorization: authorization,
          'Digest-Method': 'HS256',
          Digest: selcomDigest(config.selcomApiSecret, timestamp, entries),
          Timestamp: timestamp,
          'Signed-Fields': entries.map(([k]) => k).join(','),
        },
        ...(method === 'POST' ? { body: JSON.stringify(fields) } : {}),
        signal: AbortSignal.any([AbortSignal.timeout(TIMEOUT_MS), ...(deadline ? [deadline] : [])]),
      });
    } catch (err) {
      return { ok: false, reason: 'unreachable', detail: (err as Error).message, sent: !neverSent(err) };
    }
    const body = (await response.json().catch(() => null)) as SelcomAnswer | null;
    if (response.status >= 500 || body === null)
      return { ok: false, reason: 'unreachable', detail: `HTTP ${String(response.status)}`, sent: true };
    const code = scalar(body.resultcode);
    if (!response.ok || !ACCEPTED.has(code))
      return {
        ok: false,
        reason: 'refused',
        detail: `HTTP ${String(response.status)} resultcode ${code} ${scalar(body.message)}`.trim(),
        sent: true,
      };
    return { ok: true, body };
  }

  /**
   * The order, then the USSD push to the guest's phone. A failed order prompted nobody; a push
   * that went out unanswered may still reach the phone (`maybePrompted`).
   */
  async function prompt(request: PaymentRequest, deadline: AbortSignal): Promise<PromptResult> {
    const msisdn = request.phone.replace(/^\+/, '');
    const order = await call(
      'POST',
      '/checkout/create-order-minimal',
      {
        vendor: config.selcomVendor,
        order_id: request.invoiceNumber,
        buyer_email: config.mailFrom.replace(/^.*<|>$/g, ''),
        buyer_name: `${config.serviceName} guest`,
        buyer_phone: msisdn,
        amount: request.amountTzs,
        currency: 'TZS',
        webhook: Buffer.from(`${config.publicBaseUrl}/webhooks/selcom`).toString('base64'),
        buyer_remarks: request.description,
        merchant_remarks: request.description,
        no_of_items: 1,
      },
      deadline,
    );
    if (!order.ok) return failure(order, false);
    const push = await call(
      'POST',
      '/checkout/wallet-payment',
      { transid: request.invoiceNumber, order_id: request.invoiceNumber, msisdn },
      deadline,
    );
    if (!push.ok) return failure(push, push.reason === 'unreachable' && push.sent);
    const reference = scalar(push.body.reference);
    return { ok: true, providerReference: reference === '' ? null : reference };
  }

  return {
    name: 'selcom',
    // Its API host: the walled garden lets guests reach it before they are online.
    guestHosts: [new URL(config.selcomBaseUrl).hostname],

    // Its credentials are there: createPaymentProvider refuses to start without them.
    readiness: () => (unreachable ? { ready: false, reason: 'unreachable' } : { ready: true }),

    requestPayment: prompt,

    async queryStatus(invoice): Promise<PaymentStatus> {
      const answer = await call('GET', '/checkout/order-status', { order_id: invoice.number });
      if (!answer.ok) return { status: 'unknown', detail: answer.detail };
      const order = (Array.isArray(answer.body.data) ? answer.body.data[0] : undefined) as
        Record<string, unknown> | undefined;
      const status = scalar(order?.payment_status).toUpperCase();
      const type = PAID.has(status) ? 'payment.succeeded' : FAILED.has(status) ? 'payment.failed' : null;
      if (!order || type === null) return { status: 'pending' };
      const reference = scalar(order.reference) || scalar(order.transid) || null;
      const amount = Number(scalar(order.amount));
      return {
        status: type === 'payment.succeeded' ? 'succeeded' : 'failed',
        event: {
          provider: 'selcom',
          id: `${invoice.number}:${status}:${reference ?? ''}`,
          type,
          invoiceNumber: invoice.number,
          amountTzs: Number.isSafeInteger(amount) && amount > 0 ? amount : null,
          phone: scalar(order.phone) || null,
          providerReference: reference,
        },
      };
    },

    callbackToken: null,

    callbackInvoice: (rawBody) => scalar(parseJsonObject(rawBody)?.order_id) || null,

    verifyCallback({
      headers,
      rawBody,
    }: {
      headers: WebhookHeaders;
      rawBody: Buffer;
    }): Promise<PaymentEvent | null> {
      const signedFields = (headerValue(headers, 'signed-fields') ?? '').split(',').map((f) => f.trim());
      const timestamp = headerValue(headers, 'timestamp') ?? '';
      const digest = headerValue(headers, 'digest') ?? '';
      const body = parseJsonObject(rawBody);
      const expected = selcomDigest(
        config.selcomApiSecret,
        timestamp,
        signedFields.map((f) => [f, body?.[f]]),
      );
      // Every check runs every time; no early exit on the first mismatch.
      const checks = [
        safeEqual(headerValue(headers, 'authorization') ?? '', authorization),
        safeEqual(digest, expected),
        headerValue(headers, 'digest-method') === 'HS256' && timestamp !== '',
        REQUIRED_SIGNED.every((f) => signedFields.includes(f)),
      ];
      if (!checks.every(Boolean)) throw paymentErrors.badSignature();
      return Promise.resolve(callbackEvent(body));
    },
  };
}

const failure = (result: Extract<CallResult, { ok: false }>, maybePrompted: boolean): PromptResult => ({
  ok: false,
  reason: result.reason,
  detail: result.detail,
  maybePrompted,
});

const reasonOf = (signal: AbortSignal): string =>
  signal.reason instanceof Error ? signal.reason.message : 'aborted';

/** A verified callback → the event it reports (null for "still in progress"). */
function callbackEvent(body: Record<string, unknown> | null): PaymentEvent | null {
  const orderId = scalar(body?.order_id);
  const status = scalar(body?.payment_status).toUpperCase();
  if (!body || orderId === '' || status === '') throw paymentErrors.invalidPayload();
  const type = PAID.has(status) ? 'payment.succeeded' : FAILED.has(status) ? 'payment.failed' : null;
  if (type === null) return null;
  const reference = scalar(body.reference) || scalar(body.transid) || null;
  return {
    provider: 'selcom',
    id: `${orderId}:${status}:${reference ?? ''}`,
    type,
    invoiceNumber: orderId,
    // Selcom's callback carries no amount: the order we created fixed it.
    amountTzs: null,
    phone: null,
    providerReference: reference,
  };
}
