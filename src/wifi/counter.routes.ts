import { strictObject } from '../http/body.js';
import { defineRoute, type Route } from '../http/route.js';
import { staffActor } from './audit.js';
import { AUDIT_CSV, auditCsvRow, auditList, auditPage, wantsListPaging } from './audit.list.js';
import { listAnswer, listTimeZone, parseListQuery, type ListSpec } from './list-query.js';
import { sitesOf, timeZoneOf } from './sites.js';
import {
  extendGrant,
  issueAtCounter,
  markInvoicePaid,
  presentInvoice,
  recentGrants,
  recheckInvoice,
  revokeGrant,
  type CounterSale,
  type Staff,
} from './counter.js';
import type { WifiDeps } from './deps.js';
import { NO_FIELDS } from './admin.schema.js';
import { wifiErrors } from './errors.js';
import { presentGrant } from './grants.js';
import { presentRefund, refundInvoice } from './refunds.js';
import { presentAnswers } from './sessions.present.js';
import { requireStaff } from './staff.http.js';
import type { StaffPrincipal } from './staff.js';
import { phonesFor } from './phones.js';
import { GRANT_STATES } from './counter.store.js';

/**
 * The counter tools and the audit trail in the admin API (DESIGN.md §4.8; README "Counter
 * tools"): operators issue, extend, revoke and re-check; admins mark an invoice paid by hand,
 * refund a paid one by hand, and read the audit trail. Bodies are strict JSON (an unknown field or a non-object is 400).
 */

const issueBody = (raw: unknown) =>
  strictObject(raw, ['plan_id', 'phone', 'channel', 'amount_tzs'], wifiErrors.invalidBody);
const extendBody = (raw: unknown) => strictObject(raw, ['seconds', 'reason'], wifiErrors.invalidBody);
const reasonBody = (raw: unknown) => strictObject(raw, ['reason'], wifiErrors.invalidBody);

const staffOf = (p: StaffPrincipal): Staff => ({ actor: staffActor(p), scope: p.sites });

/** A sale's answer: the credentials this once, never cached. */
const presentSale = (sale: CounterSale) => ({
  invoice: presentInvoice(sale.invoice),
  grant: presentGrant(sale.grant),
  credentials: { username: sale.grant.username, password: sale.password, expires_at: sale.grant.expires_at },
});
const NO_STORE = { 'Cache-Control': 'no-store' };
export const GRANT_LIST: ListSpec = { statuses: GRANT_STATES };
const GRANT_CSV = [
  'issued_at',
  'username',
  'invoice_number',
  'phone',
  'plan_name',
  'channel',
  'amount_tzs',
  'expires_at',
  'revoked_at',
  'refunded_at',
  'live',
  'site_id',
];

export function counterRoutes(deps: WifiDeps): Route[] {
  const viewer = requireStaff(deps, 'viewer');
  const operator = requireStaff(deps, 'operator');
  const admin = requireStaff(deps, 'admin');
  const id = (params: Readonly<Record<string, string>>) => params.id ?? '';
  return [
    defineRoute({
      method: 'GET',
      path: '/api/v1/admin/grants',
      api: 'wifi',
      auth: viewer,
      // The admin lists' query string (issue 21): q, status, from/to, page/per_page, format=csv.
      handler: async ({ principal, query, req }) => {
        const view = { scope: principal.sites, siteId: query.site_id };
        const asked = parseListQuery(query, req.headers.accept, GRANT_LIST, await listTimeZone(deps, view));
        return listAnswer('/api/v1/admin/grants', GRANT_CSV, asked, deps.clock.now(), async (filter) =>
          phonesFor(principal, await recentGrants(deps, view, filter)),
        );
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/admin/grants',
      api: 'wifi',
      auth: operator,
      body: { kind: 'json', parse: issueBody },
      handler: async ({ principal, body }) => ({
        status: 201,
        data: presentSale(await issueAtCounter(deps, body, staffOf(principal))),
        headers: NO_STORE,
      }),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/admin/grants/:id/extend',
      api: 'wifi',
      auth: operator,
      body: { kind: 'json', parse: extendBody },
      handler: async ({ principal, params, body }) => ({
        data: presentGrant(await extendGrant(deps, id(params), body, staffOf(principal))),
      }),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/admin/grants/:id/revoke',
      api: 'wifi',
      auth: operator,
      body: { kind: 'json', parse: reasonBody },
      handler: async ({ principal, params, body }) => {
        const { grant, disconnect } = await revokeGrant(deps, id(params), body, staffOf(principal));
        return {
          data: {
            grant: presentGrant(grant),
            disconnect: { status: disconnect.status, sessions: presentAnswers(disconnect.sessions) },
          },
        };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/admin/invoices/:id/recheck',
      api: 'wifi',
      auth: operator,
      body: NO_FIELDS,
      handler: async ({ principal, params }) => {
        const result = await recheckInvoice(deps, id(params), staffOf(principal));
        return {
          data: {
            invoice: presentInvoice(result.invoice),
            provider_status: result.providerStatus,
            outcome: result.outcome,
          },
        };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/admin/invoices/:id/mark-paid',
      api: 'wifi',
      auth: admin,
      body: { kind: 'json', parse: reasonBody },
      handler: async ({ principal, params, body }) => ({
        data: presentSale(await markInvoicePaid(deps, id(params), body, staffOf(principal))),
        headers: NO_STORE,
      }),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/admin/invoices/:id/refund',
      api: 'wifi',
      auth: admin,
      body: { kind: 'json', parse: reasonBody },
      handler: async ({ principal, params, body }) => ({
        data: presentRefund(await refundInvoice(deps, id(params), body, staffOf(principal))),
      }),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/admin/audit',
      api: 'wifi',
      auth: admin,
      handler: async ({ principal, query, req }) => {
        // With page, per_page or format (issue 21): the admin lists' pages and CSV.
        if (wantsListPaging(query, req.headers.accept)) {
          const sites = await sitesOf(deps.db, { scope: principal.sites, siteId: query.site_id });
          const asked = parseListQuery(query, req.headers.accept, {}, await timeZoneOf(deps, sites));
          return listAnswer('/api/v1/admin/audit', AUDIT_CSV, asked, deps.clock.now(), async (filter) => {
            const entries = await auditList(deps, query, { ...asked, filter }, sites);
            return asked.csv ? entries.map(auditCsvRow) : entries;
          });
        }
        // site_id does not narrow this paging: its bare dates are days of the staff scope's zone.
        const zone = await listTimeZone(deps, { scope: principal.sites });
        const page = await auditPage(deps, query, principal.sites, zone);
        return { raw: { data: page.entries, next_cursor: page.nextCursor } };
      },
    }),
  ];
}
