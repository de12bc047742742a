import { ConfigError, type Config } from '../config/index.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/log.js';
import type { PaymentProvider } from './provider.js';
import { createSandboxProvider } from './sandbox.js';
import { createSelcomProvider } from './selcom.js';

export type { PaymentProvider, WebhookHeaders } from './provider.js';
export type { PaymentsDeps } from './deps.js';
export { paymentErrors } from './errors.js';
export { signWebhook, verifyWebhookSignature, WEBHOOK_TOLERANCE_SECONDS } from './signature.js';
export { selcomDigest } from './selcom.js';
export { receiveWebhook } from './webhook.js';
export { sandboxAutopay } from './autopay.js';

/** The adapter PAYMENT_PROVIDER names; a real provider without its credentials stops start-up. */
export function createPaymentProvider(deps: { config: Config; clock: Clock; log: Logger }): PaymentProvider {
  const { config } = deps;
  switch (config.paymentProvider) {
    case 'sandbox':
      return createSandboxProvider(deps);
    case 'selcom': {
      const { selcomApiKey, selcomApiSecret, selcomVendor } = config;
      if (selcomApiKey === null || selcomApiSecret === null || selcomVendor === null) {
        throw new ConfigError(
          (['SELCOM_API_KEY', 'SELCOM_API_SECRET', 'SELCOM_VENDOR'] as const)
            .filter((_, i) => [selcomApiKey, selcomApiSecret, selcomVendor][i] === null)
            .map((name) => `${name}: must be set when PAYMENT_PROVIDER is selcom`),
        );
      }
      return createSelcomProvider({
        ...deps,
        config: { ...config, selcomApiKey, selcomApiSecret, selcomVendor },
      });
    }
  }
}
