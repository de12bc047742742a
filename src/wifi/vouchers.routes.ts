import { strictObject } from '../http/body.js';
import { defineRoute, type Route } from '../http/route.js';
import { staffActor } from './audit.js';
import type { WifiDeps } from './deps.js';
import { wifiErrors } from './errors.js';
import { guestLanguage } from './language.js';
import { requireStaff } from './staff.http.js';
import {
  createBatch,
  getBatch,
  listBatches,
  printVouchers,
  redeemVoucher,
  revokeVouchers,
} from './vouchers.js';
import {
  presentBatch,
  presentBatchSummary,
  presentCreated,
  presentVoucher,
  vouchersCsv,
} from './vouchers.present.js';
import { sheetHeaders } from './vouchers.print.js';
import { BATCH_FIELDS, normaliseCode, PRINT_FIELDS } from './vouchers.schema.js';

const NO_STORE = { 'Cache-Control': 'no-store' } as const;

/**
 * `{code}`, a string: anything else is a bad request (400, not counted against the client's
 * budget of wrong guesses); a string that is no code of ours is a wrong guess (404).
 */
function redeemBody(raw: unknown): { code: string } {
  const { code } = strictObject(raw, ['code'], wifiErrors.invalidBody);
  if (typeof code !== 'string') throw wifiErrors.invalidBody();
  return { code };
}

/** Vouchers (DESIGN.md §4.8): the guest's redemption, and the staff's batches. */
export function voucherRoutes(deps: WifiDeps): Route[] {
  const viewer = requireStaff(deps, 'viewer');
  const admin = requireStaff(deps, 'admin');
  const id = (params: Readonly<Record<string, string>>) => params.id ?? '';
  return [
    defineRoute({
      method: 'POST',
      path: '/api/v1/public/vouchers/redeem',
      api: 'wifi',
      // Wrong codes draw on the same per-client budget as wrong logins (docs/decisions/0027).
      failureLimiter: 'access-login',
      body: { kind: 'json', parse: redeemBody },
      handler: async ({ req, body }) => {
        // The portal sends the language the guest chose (as purchases do): their reminders use it.
        const language = guestLanguage(req.headers['accept-language']);
        const r = await redeemVoucher(deps, normaliseCode(body.code), language);
        return {
          data: { username: r.username, password: r.password, expires_at: r.expiresAt, plan_id: r.planId },
          headers: NO_STORE,
        };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/admin/vouchers',
      api: 'wifi',
      auth: admin,
      body: { kind: 'json', parse: (raw) => strictObject(raw, BATCH_FIELDS, wifiErrors.invalidBody) },
      handler: async ({ principal, body }) => ({
        status: 201,
        data: presentCreated(await createBatch(deps, body, staffActor(principal), principal.sites)),
        headers: NO_STORE,
      }),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/admin/vouchers',
      api: 'wifi',
      auth: viewer,
      handler: async ({ principal, query }) => ({
        data: (await listBatches(deps, { scope: principal.sites, siteId: query.site_id })).map(
          presentBatchSummary,
        ),
      }),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/admin/vouchers/:id',
      api: 'wifi',
      auth: viewer,
      handler: async ({ principal, params }) => {
        const { batch, plan, vouchers } = await getBatch(deps, id(params), principal.sites);
        const now = deps.clock.now();
        return {
          data: { ...presentBatch(batch, plan), vouchers: vouchers.map((v) => presentVoucher(v, now)) },
        };
      },
    }),
    defineRoute({
      // A batch (its unused codes) or one code, by id; `reason` (optional) goes to the audit trail.
      method: 'POST',
      path: '/api/v1/admin/vouchers/:id/revoke',
      api: 'wifi',
      auth: admin,
      body: {
        kind: 'json',
        optional: true,
        parse: (raw) => strictObject(raw, ['reason'], wifiErrors.invalidBody),
      },
      handler: async ({ principal, params, body }) => {
        const r = await revokeVouchers(deps, id(params), body, staffActor(principal), principal.sites);
        return { data: { batch_id: r.batchId, voucher_id: r.voucherId, revoked: r.revoked } };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/admin/vouchers/:id/export',
      api: 'wifi',
      auth: viewer,
      handler: async ({ principal, params }) => {
        const { batch, vouchers } = await getBatch(deps, id(params), principal.sites);
        return {
          body: vouchersCsv(vouchers, deps.clock.now()),
          type: 'text/csv; charset=utf-8',
          headers: { 'Content-Disposition': `attachment; filename="vouchers-${batch.id}.csv"` },
        };
      },
    }),
    defineRoute({
      // The print sheet of codes handed back (the box keeps none): each must be an unused code of
      // the batch, or nothing is printed. It shows codes, so it is audited (printVouchers).
      method: 'POST',
      path: '/api/v1/admin/vouchers/:id/print',
      api: 'wifi',
      auth: admin,
      body: { kind: 'json', parse: (raw) => strictObject(raw, PRINT_FIELDS, wifiErrors.invalidBody) },
      handler: async ({ principal, params, body }) => {
        const { sheet } = await printVouchers(deps, id(params), body, staffActor(principal), principal.sites);
        return { body: sheet, type: 'text/html; charset=utf-8', headers: sheetHeaders(sheet) };
      },
    }),
  ];
}
