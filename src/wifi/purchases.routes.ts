import { strictObject } from '../http/body.js';
import { defineRoute, type Route } from '../http/route.js';
import type { WifiDeps } from './deps.js';
import { wifiErrors } from './errors.js';
import { guestLanguage } from './language.js';
import { getPurchase, startPurchase } from './purchases.js';
import { presentPurchaseStart, presentPurchaseStatus } from './purchases.present.js';
import { parseIdempotencyKey, PURCHASE_FIELDS } from './purchases.schema.js';
import { HOTSPOT_LOGIN_FIELDS, hotspotLogin, uamLogin, UAM_LOGIN_FIELDS } from './hand-off.js';

type Deps = Pick<WifiDeps, 'db' | 'clock' | 'config' | 'payments' | 'log' | 'vault'>;

export function purchaseRoutes(deps: Deps): Route[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/api/v1/public/purchases',
      api: 'wifi',
      body: { kind: 'json', parse: (raw) => strictObject(raw, PURCHASE_FIELDS, wifiErrors.invalidBody) },
      handler: async ({ req, body }) => {
        const purchaseKey = parseIdempotencyKey(req.headers['idempotency-key']);
        const { invoice, created } = await startPurchase(deps, {
          planId: body.plan_id,
          phone: body.phone,
          network: body.network,
          purchaseKey,
          // The portal sends the language the guest chose; others get their browser's.
          language: guestLanguage(req.headers['accept-language']),
        });
        return { status: created ? 201 : 200, data: presentPurchaseStart(invoice) };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/public/purchases/:invoiceId',
      api: 'wifi',
      handler: async ({ req, params }) => {
        const key = req.headers['x-purchase-key'];
        const status = await getPurchase(
          deps,
          params.invoiceId ?? '',
          typeof key === 'string' ? key : undefined,
        );
        // The answer may carry the guest's Wi-Fi password: never kept by a cache on the way.
        return { data: presentPurchaseStatus(status), headers: { 'Cache-Control': 'no-store' } };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/public/purchases/:invoiceId/uam-login',
      api: 'wifi',
      body: { kind: 'json', parse: (raw) => strictObject(raw, UAM_LOGIN_FIELDS, wifiErrors.invalidBody) },
      handler: async ({ params, body }) => {
        const redirectUrl = await uamLogin(deps, { invoiceId: params.invoiceId ?? '', ...body });
        // Both the spec's literal `{redirect_url}` and the Wi-Fi `{data}` convention
        // (docs/decisions/0012-uam-login-response.md).
        return { raw: { data: { redirect_url: redirectUrl }, redirect_url: redirectUrl } };
      },
    }),
    defineRoute({
      // DESIGN.md §4.7: the MikroTik hand-off, `{data: {redirect_url}}` like every Wi-Fi route.
      method: 'POST',
      path: '/api/v1/public/purchases/:invoiceId/hotspot-login',
      api: 'wifi',
      body: { kind: 'json', parse: (raw) => strictObject(raw, HOTSPOT_LOGIN_FIELDS, wifiErrors.invalidBody) },
      handler: async ({ params, body }) => ({
        data: { redirect_url: await hotspotLogin(deps, { invoiceId: params.invoiceId ?? '', ...body }) },
      }),
    }),
  ];
}
