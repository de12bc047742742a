import { strictObject } from '../http/body.js';
import { defineRoute, type Route } from '../http/route.js';
import type { WifiDeps } from './deps.js';
import { wifiErrors } from './errors.js';
import { ACCESS_LOGIN_FIELDS, accessLogin, checkRouter } from './hand-off.js';

/** The portal's routes beyond a purchase (DESIGN.md §4.7, §4.8). */
export function accessRoutes(deps: Pick<WifiDeps, 'db' | 'clock' | 'vault' | 'config'>): Route[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/api/v1/public/access/login',
      api: 'wifi',
      // Wrong logins are limited per client like logins (docs/decisions/0023).
      failureLimiter: 'access-login',
      body: { kind: 'json', parse: (raw) => strictObject(raw, ACCESS_LOGIN_FIELDS, wifiErrors.invalidBody) },
      handler: async ({ body }) => ({ data: { redirect_url: await accessLogin(deps, body) } }),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/public/router',
      api: 'wifi',
      handler: async ({ query }) => ({ data: await checkRouter(deps, query) }),
    }),
  ];
}
