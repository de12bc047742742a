import { createHmac } from 'node:crypto';
import { safeEqual } from '../lib/crypto.js';

/**
 * The generic webhook signature (DESIGN.md §4.2; Stripe's `v1`): `x-webhook-timestamp` = Unix
 * seconds, `x-webhook-signature` = one or more `v1=<hex HMAC-SHA256(secret, "<ts>.<raw body>")>`
 * separated by spaces or commas (secret rotation: any valid one passes).
 */

export const WEBHOOK_TOLERANCE_SECONDS = 300;

export function webhookSignature(secret: string, timestamp: string, rawBody: Buffer | string): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest('hex');
}

/** The header value that signs `rawBody` at `timestamp` with `secret`. */
export const signWebhook = (secret: string, timestamp: string, rawBody: Buffer | string): string =>
  `v1=${webhookSignature(secret, timestamp, rawBody)}`;

export type SignatureVerdict = 'ok' | 'missing' | 'bad_signature' | 'bad_timestamp';

/**
 * Checks the signature first (over the timestamp header exactly as sent), then the timestamp's
 * distance from `now`, so a genuine but replayed old event is told apart from a forgery.
 */
export function verifyWebhookSignature(input: {
  secret: string;
  signature: string | undefined;
  timestamp: string | undefined;
  rawBody: Buffer;
  now: Date;
  toleranceSeconds?: number;
}): SignatureVerdict {
  const { signature, timestamp } = input;
  if (!signature || !timestamp) return 'missing';
  const expected = webhookSignature(input.secret, timestamp, input.rawBody);
  let valid = false;
  for (const part of signature.split(/[\s,]+/)) {
    // Every candidate is compared (constant time each), so timing says nothing about which matched.
    if (part.startsWith('v1=') && safeEqual(expected, part.slice(3).toLowerCase())) valid = true;
  }
  if (!valid) return 'bad_signature';
  const skew = Math.abs(input.now.getTime() / 1000 - Number(timestamp));
  if (!/^\d{1,12}$/.test(timestamp) || skew > (input.toleranceSeconds ?? WEBHOOK_TOLERANCE_SECONDS))
    return 'bad_timestamp';
  return 'ok';
}
