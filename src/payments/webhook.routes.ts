import { defineRoute, type Route } from '../http/route.js';
import type { PaymentsDeps } from './deps.js';
import { receiveWebhook } from './webhook.js';

export function webhookRoutes(deps: PaymentsDeps): Route[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/webhooks/:provider',
      api: 'wifi',
      // The signature covers the exact bytes: the provider's adapter parses them after verifying.
      body: { kind: 'raw', parse: (raw) => raw },
      handler: async ({ req, params, body }) => {
        const result = await receiveWebhook(deps, {
          provider: params.provider ?? '',
          headers: req.headers,
          rawBody: body,
        });
        return { data: { event_id: result.eventId, outcome: result.outcome } };
      },
    }),
  ];
}
