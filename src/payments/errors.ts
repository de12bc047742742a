import { errorCatalogue } from '../lib/errors.js';

/** Webhook errors (wifi-access-api.md §4.2): 401 signature, 400 payload; 422s come from wifi. */
export const paymentErrors = errorCatalogue({
  unknownProvider: [404, 'unknown payment provider'],
  badSignature: [401, 'invalid webhook signature'],
  badTimestamp: [401, 'webhook timestamp outside the allowed window'],
  invalidPayload: [400, 'invalid payment event'],
  eventIdMismatch: [400, 'x-webhook-id does not match the event id'],
});
