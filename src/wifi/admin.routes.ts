import { defineRoute, type Route } from '../http/route.js';
import { SALE_CHANNELS } from './audit.js';
import type { ListFilter } from './list-filter.store.js';
import {
  listAnswer,
  listTimeZone,
  parseArchivedStatus,
  parseListQuery,
  type ListSpec,
} from './list-query.js';
import { archiveRoutes } from './archive.routes.js';
import { staffActor } from './audit.js';
import { counterRoutes } from './counter.routes.js';
import { deviceBody, NO_FIELDS, planBody, smsBody } from './admin.schema.js';
import type { WifiDeps } from './deps.js';
import { listDevices, registerDevice, rotateDeviceSecret, updateDevice } from './devices.js';
import { presentDevice } from './devices.present.js';
import { routerConfig } from './router-setup.js';
import { wifiErrors } from './errors.js';
import { messages, sendStaffSms } from './messages.js';
import { SMS_KINDS, SMS_STATES, smsLog } from './sms-log.js';
import { createPlan, listPlans, replacePlanValues } from './plans.js';
import { presentPlan } from './plans.present.js';
import { portalConfig, type PortalFacts } from './portal-config.js';
import { guests, invoices, overview, payments } from './records.js';
import { reportRoutes } from './reports.routes.js';
import { disconnectSession, disconnectSessionKeepGrant, listSessions } from './sessions.js';
import { presentDisconnect, presentSession, presentSpeedChange } from './sessions.present.js';
import { applyPlanSpeedToLive } from './speed.js';
import type { SiteView } from './sites.js';
import { adminSiteRoutes } from './sites.routes.js';
import { requireStaff } from './staff.http.js';
import type { StaffPrincipal } from './staff.js';
import { phonesFor } from './phones.js';

type Deps = WifiDeps & { portal: PortalFacts };

// What each list filters on (list-query.ts) and the columns of its CSV export.
export const SESSION_LIST: ListSpec = { statuses: ['active', 'ended'], router: true };
const INVOICE_LIST: ListSpec = {
  statuses: ['pending', 'paid', 'failed', 'expired', 'refunded'],
  plan: true,
  seller: true,
};
const PAYMENT_LIST: ListSpec = { kinds: SALE_CHANNELS, plan: true, seller: true };
const MESSAGE_LIST: ListSpec = { statuses: ['accepted', 'failed'] };
const SMS_LIST: ListSpec = { statuses: SMS_STATES, kinds: SMS_KINDS };
const SESSION_CSV = [
  'id',
  'started_at',
  'stopped_at',
  'username',
  'mac',
  'framed_ip',
  'device_name',
  'nas_id',
  'session_time',
  'output_octets',
  'input_octets',
  'terminate_cause',
  'active',
  'site_id',
];
const GUEST_CSV = ['phone', 'purchases', 'invoices', 'spent_tzs', 'first_seen', 'last_seen'];
const INVOICE_CSV = [
  'number',
  'created_at',
  'plan_name',
  'phone',
  'amount_tzs',
  'status',
  'provider',
  'provider_reference',
  'paid_at',
  'failure_reason',
  'channel',
  'site_id',
  'sold_by_name',
];
const PAYMENT_CSV = [
  'paid_at',
  'invoice_number',
  'amount_tzs',
  'phone',
  'provider',
  'provider_reference',
  'channel',
  'site_id',
  'sold_by_name',
];
const MESSAGE_CSV = [
  'created_at',
  'recipient',
  'message',
  'sender_id',
  'status',
  'provider_reference',
  'error',
];
const SMS_CSV = [
  'created_at',
  'kind',
  'recipient',
  'message',
  'sender_id',
  'state',
  'attempts',
  'error',
  'provider_reference',
  'updated_at',
  'site_id',
];

/** wifi-access-api.md §4.3: the staff admin API (roles per DESIGN.md §4.4). */
export function adminRoutes(deps: Deps): Route[] {
  const viewer = requireStaff(deps, 'viewer');
  const operator = requireStaff(deps, 'operator');
  const admin = requireStaff(deps, 'admin');
  /**
   * A list of what the staff member's sites hold, narrowed to one site by `?site_id=` (DESIGN.md
   * §4.9; an addition to the spec's lists, which behave as before without it).
   */
  const read = (
    path: string,
    load: (
      view: SiteView,
      principal: StaffPrincipal,
      query: Readonly<Record<string, string>>,
    ) => Promise<unknown>,
  ): Route =>
    defineRoute({
      method: 'GET',
      path,
      api: 'wifi',
      auth: viewer,
      handler: async ({ principal, query }) => ({
        data: await load({ scope: principal.sites, siteId: query.site_id }, principal, query),
      }),
    });
  /**
   * One of the admin lists with issue 21's query string (list-query.ts): search, filters, date
   * range, a page, or CSV; without any, the spec's plain list as before. `sited` false: a list
   * `?site_id=` does not narrow (staff messages), whose bare dates are not that site's days either.
   */
  const list = (
    path: string,
    spec: ListSpec,
    csvFields: readonly string[],
    load: (view: SiteView, filter: ListFilter, principal: StaffPrincipal) => Promise<readonly object[]>,
    sited = true,
  ): Route =>
    defineRoute({
      method: 'GET',
      path,
      api: 'wifi',
      auth: viewer,
      handler: async ({ principal, query, req }) => {
        const view = { scope: principal.sites, siteId: query.site_id };
        const zone = await listTimeZone(deps, sited ? view : { scope: principal.sites });
        const asked = parseListQuery(query, req.headers.accept, spec, zone);
        return listAnswer(path, csvFields, asked, deps.clock.now(), async (filter) =>
          phonesFor(principal, await load(view, filter, principal)),
        );
      },
    });
  const id = (params: Readonly<Record<string, string>>) => params.id ?? '';
  return [
    ...adminSiteRoutes(deps),
    ...counterRoutes(deps),
    ...reportRoutes(deps),
    read('/api/v1/admin/overview', (view) => overview(deps, view)),
    read('/api/v1/admin/portal/config', () => Promise.resolve(portalConfig(deps, deps.portal))),
    // `?status=archived|all`: archived ones too (docs/decisions/0037); without it, as before.
    read('/api/v1/admin/plans', async (view, _, query) =>
      (await listPlans(deps, view, parseArchivedStatus(query.status))).map(presentPlan),
    ),
    read('/api/v1/admin/devices', async (view, _, query) =>
      (await listDevices(deps, view, parseArchivedStatus(query.status))).map(presentDevice),
    ),
    ...archiveRoutes(deps, admin),
    list('/api/v1/admin/sessions', SESSION_LIST, SESSION_CSV, async (view, filter) =>
      (await listSessions(deps, view, filter)).map(presentSession),
    ),
    list('/api/v1/admin/guests', {}, GUEST_CSV, (view, filter) => guests(deps, view, filter)),
    list('/api/v1/admin/invoices', INVOICE_LIST, INVOICE_CSV, (view, filter) => invoices(deps, view, filter)),
    list('/api/v1/admin/payments', PAYMENT_LIST, PAYMENT_CSV, (view, filter) => payments(deps, view, filter)),
    list(
      '/api/v1/admin/messages',
      MESSAGE_LIST,
      MESSAGE_CSV,
      (_, filter, principal) => messages(deps, principal, filter),
      false,
    ),
    // An addition (issue 21): every SMS the box sent, guests' included; viewers see masked phones.
    list('/api/v1/admin/sms', SMS_LIST, SMS_CSV, (view, filter, principal) =>
      smsLog(deps, view, { userId: principal.userId, maskPhones: principal.role === 'viewer' }, filter),
    ),
    defineRoute({
      method: 'POST',
      path: '/api/v1/admin/plans',
      api: 'wifi',
      auth: admin,
      body: { kind: 'json', parse: planBody },
      handler: async ({ principal, body }) => ({
        status: 201,
        data: presentPlan(await createPlan(deps, body, principal.sites, staffActor(principal))),
      }),
    }),
    defineRoute({
      method: 'PATCH',
      path: '/api/v1/admin/plans/:id',
      api: 'wifi',
      auth: admin,
      body: { kind: 'json', parse: planBody },
      handler: async ({ principal, params, body }) => ({
        data: presentPlan(
          await replacePlanValues(deps, id(params), body, principal.sites, staffActor(principal)),
        ),
      }),
    }),
    defineRoute({
      // DESIGN.md §4.7: the plan's speed to its live grants, and a CoA-Request to their sessions.
      method: 'POST',
      path: '/api/v1/admin/plans/:id/apply-to-live',
      api: 'wifi',
      auth: admin,
      body: NO_FIELDS,
      handler: async ({ principal, params }) => ({
        data: presentSpeedChange(
          await applyPlanSpeedToLive(deps, id(params), principal.sites, staffActor(principal)),
        ),
      }),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/admin/devices',
      api: 'wifi',
      auth: admin,
      body: { kind: 'json', parse: deviceBody },
      handler: async ({ principal, body }) => {
        const { device, radiusSecret } = await registerDevice(
          deps,
          body,
          principal.sites,
          staffActor(principal),
        );
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
      handler: async ({ principal, params, body }) => {
        // `radius_secret: null` moves the device to RADIUS_SECRET; a new secret of its own comes
        // only from rotate-secret, which shows it once.
        if (body.radius_secret !== undefined && body.radius_secret !== null) throw wifiErrors.invalidBody();
        return {
          data: presentDevice(
            await updateDevice(deps, id(params), body, principal.sites, staffActor(principal)),
          ),
        };
      },
    }),
    defineRoute({
      // DESIGN.md §4.7: the router's set-up as text, for a download (it holds the router's secret).
      method: 'GET',
      path: '/api/v1/admin/devices/:id/router-config',
      api: 'wifi',
      auth: admin,
      handler: async ({ principal, params, query }) => {
        const { text, fileName } = await routerConfig(deps, id(params), {
          format: query.format,
          radiusAddress: query.radius_address,
          scope: principal.sites,
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
      body: NO_FIELDS,
      handler: async ({ principal, params }) => {
        const { device, radiusSecret } = await rotateDeviceSecret(
          deps,
          id(params),
          undefined,
          principal.sites,
          staffActor(principal),
        );
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
      body: NO_FIELDS,
      handler: async ({ principal, params }) => ({
        data: presentDisconnect(
          await disconnectSession(deps, id(params), undefined, principal.sites, staffActor(principal)),
        ),
      }),
    }),
    defineRoute({
      // An addition to the spec (issue 21): the Disconnect-Request only; the grant stays live.
      method: 'POST',
      path: '/api/v1/admin/sessions/:id/disconnect-keep-grant',
      api: 'wifi',
      auth: operator,
      body: NO_FIELDS,
      handler: async ({ principal, params }) => ({
        data: presentDisconnect(
          await disconnectSessionKeepGrant(
            deps,
            id(params),
            undefined,
            principal.sites,
            staffActor(principal),
          ),
        ),
      }),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/admin/messages',
      api: 'wifi',
      auth: operator,
      body: { kind: 'json', parse: smsBody },
      handler: async ({ principal, body }) => {
        const { accepted, record } = await sendStaffSms(deps, principal.userId, body, staffActor(principal));
        if (!accepted) throw wifiErrors.smsGatewayRefused();
        return { status: 202, data: record };
      },
    }),
  ];
}
