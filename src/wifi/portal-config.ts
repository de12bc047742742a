import type { WifiDeps } from './deps.js';

/** What the composition root knows about the box that a portal integrator may see. */
export interface PortalFacts {
  /** The RADIUS listener as it is: the ports bound now (null: not listening). */
  radius(): { listening: boolean; auth_port: number | null; acct_port: number | null };
}

/**
 * GET /api/v1/admin/portal/config: the non-secret values and readiness a captive portal
 * integration needs (never a secret: no webhook, RADIUS or uam secret, only whether one is set).
 */
export function portalConfig(deps: Pick<WifiDeps, 'config' | 'payments'>, facts: PortalFacts) {
  const base = deps.config.publicBaseUrl;
  const api = `${base}/api/v1`;
  return {
    api_base_url: api,
    portal_url: `${base}/portal`,
    endpoints: {
      plans: `${api}/public/plans`,
      purchases: `${api}/public/purchases`,
      purchase_status: `${api}/public/purchases/{invoice_id}`,
      uam_login: `${api}/public/purchases/{invoice_id}/uam-login`,
      hotspot_login: `${api}/public/purchases/{invoice_id}/hotspot-login`,
      access_login: `${api}/public/access/login`,
      router_check: `${api}/public/router`,
      payment_webhook: webhookUrl(base, deps.payments.name),
      // The SMS gateway's delivery reports (docs/decisions/0047), when SMS_DELIVERY_TOKEN is set.
      sms_delivery:
        deps.config.smsDeliveryToken === null ? null : `${base}/sms/delivery/{SMS_DELIVERY_TOKEN}`,
    },
    payment_provider: {
      name: deps.payments.name,
      ...deps.payments.readiness(),
      sandbox: deps.payments.name === 'sandbox',
    },
    radius: facts.radius(),
    uam: { default_secret_set: deps.config.uamSecret !== null },
    cors_origins: { admin: deps.config.adminOrigin, portal: deps.config.portalOrigin },
  };
}

/**
 * The first provider's callback URL. AzamPay's callbacks are trusted only at a secret URL
 * (docs/decisions/0032): its last segment is named, never shown, since viewers read this too.
 */
const webhookUrl = (base: string, provider: string): string =>
  provider === 'azampay'
    ? `${base}/webhooks/azampay/{AZAMPAY_CALLBACK_TOKEN}`
    : `${base}/webhooks/${provider}`;
