import type { PaymentEvent } from '../wifi/index.js';
import { paymentErrors } from './errors.js';

/**
 * The event body of the generic scheme (DESIGN.md §4.2):
 * `{"id":"evt_…","type":"payment.succeeded"|"payment.failed","data":{"invoice_number":"…",
 * "amount_tzs":1000,"phone":"+255…","provider_reference":"…"}}`. Unknown fields are ignored (a
 * sender may add some); missing or mistyped ones are a 400.
 */
export function parseGenericEvent(
  provider: string,
  rawBody: Buffer,
  headerId: string | undefined,
): PaymentEvent {
  let doc: unknown;
  try {
    doc = JSON.parse(rawBody.toString('utf8'));
  } catch {
    throw paymentErrors.invalidPayload();
  }
  const event = asObject(doc);
  const data = asObject(event.data);
  const { id, type } = event;
  const { invoice_number: number, amount_tzs: amount, phone, provider_reference: reference } = data;
  if (!isText(id, 200) || (type !== 'payment.succeeded' && type !== 'payment.failed') || !isText(number, 64))
    throw paymentErrors.invalidPayload();
  const amountOk = typeof amount === 'number' && Number.isSafeInteger(amount) && amount > 0;
  if (!amountOk && (amount !== undefined || type === 'payment.succeeded'))
    throw paymentErrors.invalidPayload();
  if (!optionalText(phone) || !optionalText(reference)) throw paymentErrors.invalidPayload();
  // The header is not signed; the body id is. When both are present they must agree.
  if (headerId !== undefined && headerId !== id) throw paymentErrors.eventIdMismatch();
  return {
    provider,
    id,
    type,
    invoiceNumber: number,
    amountTzs: amountOk ? amount : null,
    phone: phone ?? null,
    providerReference: reference ?? null,
  };
}

function asObject(value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw paymentErrors.invalidPayload();
  return value as Record<string, unknown>;
}

const isText = (v: unknown, max: number): v is string =>
  typeof v === 'string' && v.length > 0 && v.length <= max;
const optionalText = (v: unknown): v is string | null | undefined =>
  v === undefined || v === null || isText(v, 200);
