import { wifiErrors } from './errors.js';

/**
 * POST /api/v1/public/purchases body fields: the spec's plan_id and phone, and the optional
 * network a guest names when their number moved networks (wifi/networks.ts).
 */
export const PURCHASE_FIELDS = ['plan_id', 'phone', 'network'] as const;

const PURCHASE_KEY = /^[A-Za-z0-9_-]{16,96}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The Idempotency-Key header: 16-96 letters, digits, underscores or hyphens (400 otherwise). */
export function parseIdempotencyKey(header: string | readonly string[] | undefined): string {
  if (header === undefined || header === '') throw wifiErrors.idempotencyKeyMissing();
  if (typeof header !== 'string' || !PURCHASE_KEY.test(header)) throw wifiErrors.idempotencyKeyInvalid();
  return header;
}

export const isUuid = (value: unknown): value is string => typeof value === 'string' && UUID.test(value);
