import { defineRoute, type Route } from '../http/route.js';
import type { WifiDeps } from './deps.js';
import { checkDeliveryToken, parseDeliveryReport, recordDelivery, reportFields } from './sms-delivery.js';

/**
 * POST /sms/delivery/{token}: the SMS gateway's delivery reports (docs/decisions/0047). Beem
 * expects its own acknowledgement, `{request_id, successful: true}`; the others get the envelope.
 */
export function smsDeliveryRoutes(deps: Pick<WifiDeps, 'db' | 'clock' | 'log' | 'config'>): Route[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/sms/delivery/:token',
      api: 'wifi',
      // Wrong tokens and malformed reports count against the sender; good reports do not.
      failureLimiter: 'sms-delivery',
      body: { kind: 'raw', parse: (raw) => raw },
      handler: async ({ req, params, body }) => {
        checkDeliveryToken(deps, params.token ?? '');
        const report = parseDeliveryReport(reportFields(body, req.headers['content-type']));
        const recorded = await recordDelivery(deps, report);
        if (deps.config.smsProvider === 'beem')
          return { raw: { request_id: report.reference, successful: true } };
        return { data: { id: recorded.id, state: recorded.state } };
      },
    }),
  ];
}
