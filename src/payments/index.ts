export type { PaymentProvider, WebhookHeaders } from './provider.js';
export type { PaymentsDeps } from './deps.js';
export {
  createPaymentAdapters,
  createPaymentGateway,
  providerOrder,
  PROMPT_DEADLINE_MS,
  type PaymentProviders,
} from './gateway.js';
export { paymentErrors } from './errors.js';
export { signWebhook, verifyWebhookSignature, WEBHOOK_TOLERANCE_SECONDS } from './signature.js';
export { selcomDigest } from './selcom.js';
export { azampayOperator, tokenLifetime, type AzamPayOperator } from './azampay.js';
export { receiveWebhook } from './webhook.js';
export { freeWifiWarning, sandboxAutopay } from './autopay.js';
