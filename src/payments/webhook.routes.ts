import { defineRoute, type Route } from '../http/route.js';
import type { PaymentsDeps } from './deps.js';
import { receiveWebhook } from './webhook.js';

/**
 * Provider callbacks: `/webhooks/<provider>` for those that sign theirs, and
 * `/webhooks/<provider>/<token>`, the secret URL of one that does not (AzamPay).
 */
export function webhookRoutes(deps: PaymentsDeps): Route[] {
  return ['/webhooks/:provider', '/webhooks/:provider/:token'].map((path) =>
    defineRoute({
      method: 'POST',
      path,
      api: 'wifi',
      // The signature covers the exact bytes: the provider's adapter parses them after verifying.
      body: { kind: 'raw', parse: (raw) => raw },
      handler: async ({ req, params, body }) => {
        const result = await receiveWebhook(deps, {
          provider: params.provider ?? '',
          ...(params.token === undefined ? {} : { token: params.token }),
          headers: req.headers,
          rawBody: body,
        });
        return { data: { event_id: result.eventId, outcome: result.outcome } };
      },
    }),
  );
}
