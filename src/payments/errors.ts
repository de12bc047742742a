import { errorCatalogue } from '../lib/errors.js';

/** Webhook errors (wifi-access-api.md §4.2): 401 signature, 400 payload; 422s come from wifi. */
export const paymentErrors = errorCatalogue({
  unknownProvider: [404, 'unknown payment provider'],
  badSignature: [401, 'invalid webhook signature'],
  badTimestamp: [401, 'webhook timestamp outside the allowed window'],
  /** The secret last segment of an unsigned provider's callback URL is missing or wrong. */
  badToken: [401, 'invalid webhook token'],
  invalidPayload: [400, 'invalid payment event'],
  eventIdMismatch: [400, 'x-webhook-id does not match the event id'],
  /** An unsigned callback whose status query got no answer: the provider should try again. */
  unconfirmed: [503, 'the payment could not be confirmed with the provider'],
});
