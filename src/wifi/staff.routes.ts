import { defineRoute, type Route } from '../http/route.js';
import type { Vault } from '../lib/vault.js';
import { NO_FIELDS, staffLoginBody } from './admin.schema.js';
import type { WifiDeps } from './deps.js';
import { adminCookie, clearAdminCookie, requireStaff } from './staff.http.js';
import { presentStaffIdentity, staffLogin, staffLogout } from './staff.js';

type Deps = Pick<WifiDeps, 'db' | 'clock' | 'config' | 'log'> & { vault: Vault };

/** wifi-access-api.md §4.3: staff sign-in, identity and sign-out. */
export function staffRoutes(deps: Deps): Route[] {
  const anyStaff = requireStaff(deps, 'viewer');
  return [
    defineRoute({
      method: 'POST',
      path: '/api/v1/admin/auth/login',
      api: 'wifi',
      limiter: 'admin-login',
      body: { kind: 'json', parse: staffLoginBody },
      handler: async ({ body, ip }) => {
        const { principal, token } = await staffLogin(deps, { ...body, ip });
        return { data: presentStaffIdentity(principal), headers: { 'Set-Cookie': adminCookie(deps, token) } };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/admin/auth/me',
      api: 'wifi',
      auth: anyStaff,
      handler: ({ principal }) => ({ data: presentStaffIdentity(principal) }),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/admin/auth/logout',
      body: NO_FIELDS,
      api: 'wifi',
      auth: anyStaff,
      handler: async ({ principal }) => {
        await staffLogout(deps, principal.sessionId);
        return { status: 204, empty: true, headers: { 'Set-Cookie': clearAdminCookie(deps) } };
      },
    }),
  ];
}
