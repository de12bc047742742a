import { defineRoute, type Route } from '../http/route.js';
import { deviceBody, planBody, smsBody } from './admin.schema.js';
import type { WifiDeps } from './deps.js';
import { listDevices, registerDevice, rotateDeviceSecret, updateDevice } from './devices.js';
import { presentDevice } from './devices.present.js';
import { routerConfig } from './router-setup.js';
import { wifiErrors } from './errors.js';
import { messages, sendStaffSms } from './messages.js';
import { createPlan, listPlans, replacePlanValues } from './plans.js';
import { presentPlan } from './plans.present.js';
import { portalConfig, type PortalFacts } from './portal-config.js';
import { guests, invoices, overview, payments } from './records.js';
import { disconnectSession, listSessions } from './sessions.js';
import { presentDisconnect, presentSession, presentSpeedChange } from './sessions.present.js';
import { applyPlanSpeedToLive } from './speed.js';
import { requireStaff } from './staff.http.js';

type Deps = WifiDeps & { portal: PortalFacts };

/** wifi-access-api.md §4.3: the staff admin API (roles per DESIGN.md §4.4). */
export function adminRoutes(deps: Deps): Route[] {
  const viewer = requireStaff(deps, 'viewer');
  const operator = requireStaff(deps, 'operator');
  const admin = requireStaff(deps, 'admin');
  const read = (path: string, load: () => Promise<unknown>): Route =>
    defineRoute({
      method: 'GET',
      path,
      api: 'wifi',
      auth: viewer,
      handler: async () => ({ data: await load() }),
    });
  const id = (params: Readonly<Record<string, string>>) => params.id ?? '';
  return [
    read('/api/v1/admin/overview', () => overview(deps)),
    read('/api/v1/admin/portal/config', () => Promise.resolve(portalConfig(deps, deps.portal))),
    read('/api/v1/admin/plans', async () => (await listPlans(deps)).map(presentPlan)),
    read('/api/v1/admin/devices', async () => (await listDevices(deps)).map(presentDevice)),
    read('/api/v1/admin/sessions', async () => (await listSessions(deps)).map(presentSession)),
    read('/api/v1/admin/guests', () => guests(deps)),
    read('/api/v1/admin/invoices', () => invoices(deps)),
    read('/api/v1/admin/payments', () => payments(deps)),
    read('/api/v1/admin/messages', () => messages(deps)),
    defineRoute({
      method: 'POST',
      path: '/api/v1/admin/plans',
      api: 'wifi',
      auth: admin,
      body: { kind: 'json', parse: planBody },
      handler: async ({ body }) => ({ status: 201, data: presentPlan(await createPlan(deps, body)) }),
    }),
    defineRoute({
      method: 'PATCH',
      path: '/api/v1/admin/plans/:id',
      api: 'wifi',
      auth: admin,
      body: { kind: 'json', parse: planBody },
      handler: async ({ params, body }) => ({
        data: presentPlan(await replacePlanValues(deps, id(params), body)),
      }),
    }),
    defineRoute({
      // DESIGN.md §4.7: the plan's speed to its live grants, and a CoA-Request to their sessions.
      method: 'POST',
      path: '/api/v1/admin/plans/:id/apply-to-live',
      api: 'wifi',
      auth: admin,
      handler: async ({ params }) => ({
        data: presentSpeedChange(await applyPlanSpeedToLive(deps, id(params))),
      }),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/admin/devices',
      api: 'wifi',
      auth: admin,
      body: { kind: 'json', parse: deviceBody },
      handler: async ({ body }) => {
        const { device, radiusSecret } = await registerDevice(deps, body);
        return {
          status: 201,
          // Its own secret, shown this once; a device on RADIUS_SECRET has none to show.
          data: { ...presentDevice(device), ...(radiusSecret !== null && { radius_secret: radiusSecret }) },
          headers: { 'Cache-Control': 'no-store' },
        };
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/api/v1/admin/devices/:id',
      api: 'wifi',
      auth: admin,
      body: { kind: 'json', parse: deviceBody },
      handler: async ({ params, body }) => {
        // `radius_secret: null` moves the device to RADIUS_SECRET; a new secret of its own comes
        // only from rotate-secret, which shows it once.
        if (body.radius_secret !== undefined && body.radius_secret !== null) throw wifiErrors.invalidBody();
        return { data: presentDevice(await updateDevice(deps, id(params), body)) };
      },
    }),
    defineRoute({
      // DESIGN.md §4.7: the router's set-up as text, for a download (it holds the router's secret).
      method: 'GET',
      path: '/api/v1/admin/devices/:id/router-config',
      api: 'wifi',
      auth: admin,
      handler: async ({ params, query }) => {
        const { text, fileName } = await routerConfig(deps, id(params), {
          format: query.format,
          radiusAddress: query.radius_address,
        });
        return {
          body: text,
          type: 'text/plain; charset=utf-8',
          headers: {
            'Cache-Control': 'no-store',
            'Content-Disposition': `attachment; filename="${fileName}"`,
          },
        };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/admin/devices/:id/rotate-secret',
      api: 'wifi',
      auth: admin,
      handler: async ({ params }) => {
        const { device, radiusSecret } = await rotateDeviceSecret(deps, id(params));
        return {
          data: { ...presentDevice(device), radius_secret: radiusSecret },
          headers: { 'Cache-Control': 'no-store' },
        };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/admin/sessions/:id/disconnect',
      api: 'wifi',
      auth: operator,
      handler: async ({ params }) => ({
        data: presentDisconnect(await disconnectSession(deps, id(params))),
      }),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/admin/messages',
      api: 'wifi',
      auth: operator,
      body: { kind: 'json', parse: smsBody },
      handler: async ({ principal, body }) => {
        const { accepted, record } = await sendStaffSms(deps, principal.userId, body);
        if (!accepted) throw wifiErrors.smsGatewayRefused();
        return { status: 202, data: record };
      },
    }),
  ];
}
