import type { Db } from '../db/index.js';
import { randomString, sha256Hex, randomToken, uuid } from '../lib/crypto.js';
import { startOfDay } from '../lib/time.js';
import { recordAudit, type WifiActor } from './audit.js';
import { newInvoiceSuffix } from './codes.js';
import { optionalReason } from './counter.js';
import { isUniqueViolation } from './db-errors.js';
import type { WifiDeps } from './deps.js';
import { voucherCodesRefused, wifiErrors } from './errors.js';
import { issue } from './grants.js';
import type { GuestLanguage } from './language.js';
import { ADMIN_LIST_LIMIT } from './limits.js';
import { findPlan, type PlanRow } from './plans.store.js';
import { invoiceNumber } from './purchases.js';
import { insertInvoice, nextSequence, type InvoiceRow } from './purchases.store.js';
import { insertPayment } from './settlement.store.js';
import { findSite } from './sites.store.js';
import { inScope, sitesOf, timeZoneOf, type SiteScope, type SiteView } from './sites.js';
import {
  countByStatus,
  findBatch,
  findVoucher,
  findVoucherByHash,
  insertBatch,
  markBatchRevoked,
  markRedeemed,
  markRevoked,
  planNames,
  selectBatches,
  selectVouchers,
  selectVouchersByHash,
  setRedemption,
  type VoucherBatchRow,
  type VoucherRow,
} from './vouchers.store.js';
import { voucherSheet } from './vouchers.print.js';
import {
  normaliseCode,
  parseBatch,
  parsePrintCodes,
  parsePrintFormat,
  VOUCHER_ALPHABET,
  type BatchRequest,
  type PrintFormat,
  type PrintRequest,
} from './vouchers.schema.js';

/**
 * Vouchers (DESIGN.md §4.8, docs/decisions/0027-vouchers.md): printed codes that sell a plan
 * without mobile money. A code is stored only as its keyed digest (and its last three
 * characters): the plaintext exists in the creation answer alone, so printing later takes the
 * codes handed back and checks each against the batch. Redeeming one is a sale like any other: an
 * invoice and a payment of channel `voucher` and the grant, in one transaction.
 */

export type { VoucherBatchRow, VoucherRow } from './vouchers.store.js';
export type VoucherStatus = 'unused' | 'redeemed' | 'revoked' | 'expired';

type Deps = Pick<WifiDeps, 'db' | 'clock' | 'vault' | 'config'>;

const codeDigest = (deps: Pick<WifiDeps, 'vault'>, code: string): string =>
  deps.vault.digest(code, 'voucher-code');

/** What a code shows as now: an unused one past its last day has expired. */
export const statusOf = (voucher: VoucherRow, now: Date): VoucherStatus =>
  voucher.status === 'unused' && voucher.valid_until !== null && voucher.valid_until <= now.toISOString()
    ? 'expired'
    : (voucher.status as VoucherStatus);

export interface CreatedBatch {
  batch: VoucherBatchRow;
  plan: PlanRow;
  /** The plaintext codes, in the order of `vouchers`: shown this once. */
  codes: { voucher: VoucherRow; code: string }[];
}

/**
 * `vouchers create`, POST /api/v1/admin/vouchers: a batch of `count` codes for a plan the scope
 * holds, with an audit entry, in one transaction.
 */
export async function createBatch(
  deps: Deps,
  request: BatchRequest,
  actor: WifiActor,
  scope: SiteScope = null,
): Promise<CreatedBatch> {
  const values = parseBatch(request);
  const plan = await findPlan(deps.db, values.planId);
  if (!plan || !inScope(scope, plan.site_id)) throw wifiErrors.voucherPlanInvalid();
  if (plan.archived_at !== null) throw wifiErrors.planArchived();
  const now = deps.clock.now();
  const validUntil = values.validUntil === null ? null : await endOf(deps, values.validUntil, plan.site_id);
  if (validUntil !== null && validUntil <= now.toISOString()) throw wifiErrors.voucherValidUntilInvalid();
  const batch: VoucherBatchRow = {
    id: uuid(),
    plan_id: plan.id,
    site_id: plan.site_id,
    count: values.count,
    prefix: values.prefix,
    code_length: values.length,
    valid_until: validUntil,
    created_by: actor.label,
    created_at: now.toISOString(),
    revoked_at: null,
    ...termsOf(plan),
  };
  const seen = new Set<string>();
  const codes: CreatedBatch['codes'] = [];
  while (codes.length < values.count) {
    const code = values.prefix + randomString(VOUCHER_ALPHABET, values.length);
    if (seen.has(code)) continue;
    seen.add(code);
    const id = uuid();
    codes.push({
      code,
      voucher: {
        id,
        batch_id: batch.id,
        code_hash: codeDigest(deps, code),
        last3: code.slice(-3),
        status: 'unused',
        valid_until: validUntil,
        redeemed_at: null,
        invoice_id: null,
        grant_id: null,
        revoked_at: null,
      },
    });
  }
  // Ids in creation order, so a batch lists and prints in the order it was made.
  codes.sort((a, b) => (a.voucher.id < b.voucher.id ? -1 : 1));
  await deps.db.transaction().execute(async (tx) => {
    await insertBatch(
      tx,
      batch,
      codes.map((c) => c.voucher),
    );
    await recordAudit(tx, deps.clock, {
      actor,
      action: 'voucher_batch.create',
      target: { type: 'voucher_batch', id: batch.id },
      siteId: batch.site_id,
      after: presentBatchRow(batch),
    });
  });
  return { batch, plan, codes };
}

/**
 * What a batch sells: the plan's terms when it is made, kept with it (migration 0047,
 * docs/decisions/0027-vouchers.md). Its cards print them and a redemption gives and books them,
 * whatever the plan says later: a batch is stock sold in advance.
 */
export type BatchTerms = Pick<
  VoucherBatchRow,
  'price_tzs' | 'duration_seconds' | 'data_limit_bytes' | 'max_devices' | 'download_kbps' | 'upload_kbps'
>;

export const termsOf = (from: BatchTerms): BatchTerms => ({
  price_tzs: from.price_tzs,
  duration_seconds: from.duration_seconds,
  data_limit_bytes: from.data_limit_bytes,
  max_devices: from.max_devices,
  download_kbps: from.download_kbps,
  upload_kbps: from.upload_kbps,
});

/** `YYYY-MM-DD` → the end of that day in the site's time zone; an instant as it is. */
async function endOf(deps: Pick<WifiDeps, 'db' | 'config'>, value: string, siteId: string): Promise<string> {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return new Date(value).toISOString();
  const timeZone = (await findSite(deps.db, siteId))?.time_zone ?? deps.config.venueTimezone;
  const noonNextDay = new Date(`${value}T12:00:00Z`);
  noonNextDay.setUTCDate(noonNextDay.getUTCDate() + 1);
  return startOfDay(noonNextDay, timeZone).toISOString();
}

const presentBatchRow = (batch: VoucherBatchRow) => ({
  id: batch.id,
  plan_id: batch.plan_id,
  site_id: batch.site_id,
  count: batch.count,
  prefix: batch.prefix,
  length: batch.code_length,
  valid_until: batch.valid_until,
  created_by: batch.created_by,
  created_at: batch.created_at,
  revoked_at: batch.revoked_at,
  ...termsOf(batch),
});

export interface BatchSummary {
  batch: VoucherBatchRow;
  /** The plan's name now (null: the plan is gone). */
  planName: string | null;
  counts: Record<VoucherStatus, number>;
}

/** The batches of the sites in view, newest first, with how many codes are in each status. */
export async function listBatches(
  deps: Pick<WifiDeps, 'db' | 'clock'>,
  view: SiteView,
  options: { all?: boolean } = {},
): Promise<BatchSummary[]> {
  const sites = await sitesOf(deps.db, view);
  const batches = await selectBatches(deps.db, { sites, limit: options.all ? null : ADMIN_LIST_LIMIT });
  const counts = await countByStatus(
    deps.db,
    batches.map((b) => b.id),
    deps.clock.now().toISOString(),
  );
  const plans = await planNames(deps.db, [...new Set(batches.map((b) => b.plan_id))]);
  return batches.map((batch) => ({
    batch,
    planName: plans.get(batch.plan_id) ?? null,
    counts: counts.get(batch.id) ?? { unused: 0, redeemed: 0, revoked: 0, expired: 0 },
  }));
}

/** One batch the scope holds, with its codes (never their plaintext); 404 otherwise. */
export async function getBatch(
  deps: Pick<WifiDeps, 'db'>,
  id: string,
  scope: SiteScope = null,
): Promise<{ batch: VoucherBatchRow; plan: PlanRow | undefined; vouchers: VoucherRow[] }> {
  const batch = await findBatch(deps.db, id.toLowerCase());
  if (!batch || !inScope(scope, batch.site_id)) throw wifiErrors.voucherBatchNotFound();
  return {
    batch,
    plan: await findPlan(deps.db, batch.plan_id),
    vouchers: await selectVouchers(deps.db, batch.id),
  };
}

/**
 * Revokes a batch (its unused codes, and any made later cannot be redeemed) or one code, by id;
 * redeemed codes keep their grant: the guest has it. Audited; revoking twice changes nothing more.
 */
export async function revokeVouchers(
  deps: Pick<WifiDeps, 'db' | 'clock'>,
  id: string,
  request: { reason?: unknown },
  actor: WifiActor,
  scope: SiteScope = null,
): Promise<{ batchId: string; voucherId: string | null; revoked: number }> {
  const key = id.toLowerCase();
  const reason = optionalReason(request.reason);
  return deps.db.transaction().execute(async (tx) => {
    const now = deps.clock.now().toISOString();
    const voucher = await findVoucher(tx, key);
    const batch = await findBatch(tx, voucher?.batch_id ?? key);
    if (!batch || !inScope(scope, batch.site_id)) throw wifiErrors.voucherBatchNotFound();
    const target = voucher ? { id: voucher.id } : { batchId: batch.id };
    const revoked = await markRevoked(tx, target, now);
    if (!voucher) await markBatchRevoked(tx, batch.id, now);
    // A revoke that changed nothing (a code already redeemed or revoked, a batch revoked before
    // with no unused code since) leaves the trail alone.
    const changed = revoked > 0 || (!voucher && batch.revoked_at === null);
    if (changed)
      await recordAudit(tx, deps.clock, {
        actor,
        action: voucher ? 'voucher.revoke' : 'voucher_batch.revoke',
        target: voucher ? { type: 'voucher', id: voucher.id } : { type: 'voucher_batch', id: batch.id },
        siteId: batch.site_id,
        reason,
        before: voucher ? { status: voucher.status } : presentBatchRow(batch),
        after: voucher
          ? { status: 'revoked' }
          : { ...presentBatchRow(batch), revoked_at: batch.revoked_at ?? now, codes_revoked: revoked },
      });
    return { batchId: batch.id, voucherId: voucher?.id ?? null, revoked };
  });
}

/**
 * The print sheet of codes of a batch (`vouchers.print.ts`), with the box's name and portal, its
 * dates in the batch's site's time zone.
 */
export async function sheetOf(
  deps: Pick<WifiDeps, 'db' | 'config'>,
  input: {
    format: PrintFormat;
    batch: VoucherBatchRow;
    plan: Pick<PlanRow, 'name'>;
    codes: readonly string[];
  },
): Promise<string> {
  return voucherSheet({
    ...input,
    timeZone: await timeZoneOf(deps, [input.batch.site_id]),
    serviceName: deps.config.serviceName,
    portalUrl: `${deps.config.publicBaseUrl}/portal`,
  });
}

export interface PrintedSheet {
  format: PrintFormat;
  batch: VoucherBatchRow;
  plan: PlanRow;
  /** The codes printed (normalised, each once), in the order they were handed in. */
  codes: string[];
  sheet: string;
}

/**
 * POST /api/v1/admin/vouchers/{id}/print, the admin UI's print buttons, `vouchers print BATCH
 * --codes-file`: the print sheet of codes handed back (the box keeps none), each of which must be
 * an unused code of this batch (not redeemed, revoked or expired). One that is not refuses the
 * whole request (422, saying how many), and nothing is printed. Audited, since a sheet shows codes.
 */
export async function printVouchers(
  deps: Pick<WifiDeps, 'db' | 'clock' | 'vault' | 'config'>,
  id: string,
  request: PrintRequest,
  actor: WifiActor,
  scope: SiteScope = null,
): Promise<PrintedSheet> {
  const format = parsePrintFormat(request.format);
  const typed = parsePrintCodes(request.codes);
  const { batch, plan } = await getBatch(deps, id, scope);
  if (!plan) throw wifiErrors.voucherBatchNotFound();
  const normalised = typed.map(normaliseCode);
  const wanted = normalised.filter((c) => c !== null).map((code) => ({ code, hash: codeDigest(deps, code) }));
  const found = new Map(
    (await selectVouchersByHash(deps.db, batch.id, [...new Set(wanted.map((w) => w.hash))])).map((v) => [
      v.code_hash,
      v,
    ]),
  );
  const now = deps.clock.now();
  const printable = (w: { hash: string }): boolean => {
    const voucher = found.get(w.hash);
    return voucher !== undefined && statusOf(voucher, now) === 'unused';
  };
  const refused = typed.length - wanted.filter(printable).length;
  if (refused > 0) throw voucherCodesRefused(refused, typed.length);
  const codes = [...new Set(wanted.map((w) => w.code))];
  await recordAudit(deps.db, deps.clock, {
    actor,
    action: 'voucher_batch.print',
    target: { type: 'voucher_batch', id: batch.id },
    siteId: batch.site_id,
    after: { format, codes: codes.length },
  });
  return { format, batch, plan, codes, sheet: await sheetOf(deps, { format, batch, plan, codes }) };
}

/** The answer of a redemption: what the portal hands to the router. */
export interface Redemption {
  username: string;
  password: string;
  expiresAt: string;
  planId: string;
}

/**
 * POST /api/v1/public/vouchers/redeem: a typed code (normalised) becomes a grant whose time runs
 * from now. 404 for a code that is not one; 409 for one used, revoked or expired. Of two
 * redemptions of one code at once, one gets the grant and the other a 409 (markRedeemed).
 */
export async function redeemVoucher(
  deps: Deps,
  code: string | null,
  language: GuestLanguage | null = null,
): Promise<Redemption> {
  const voucher = code === null ? undefined : await findVoucherByHash(deps.db, codeDigest(deps, code));
  if (!voucher) throw wifiErrors.voucherUnknown();
  try {
    return await deps.db.transaction().execute((tx) => redeemIn(tx, deps, voucher.id, language));
  } catch (err) {
    // Another redemption took the next invoice sequence number first: once more.
    if (!isUniqueViolation(err)) throw err;
    return deps.db.transaction().execute((tx) => redeemIn(tx, deps, voucher.id, language));
  }
}

async function redeemIn(
  tx: Db,
  deps: Deps,
  voucherId: string,
  language: GuestLanguage | null,
): Promise<Redemption> {
  const now = deps.clock.now();
  const paidAt = now.toISOString();
  if (!(await markRedeemed(tx, voucherId, paidAt))) {
    const current = await findVoucher(tx, voucherId);
    if (current?.status === 'revoked') throw wifiErrors.voucherRevoked();
    if (current?.status === 'unused') throw wifiErrors.voucherExpired();
    throw wifiErrors.voucherUsed();
  }
  const voucher = await findVoucher(tx, voucherId);
  const batch = voucher && (await findBatch(tx, voucher.batch_id));
  if (!voucher || !batch) throw wifiErrors.voucherUnknown();
  const sequence = await nextSequence(tx);
  // The batch's terms, not the plan's now: the card was sold at them (docs/decisions/0027).
  const invoice: InvoiceRow = {
    id: uuid(),
    number: invoiceNumber(deps.config.invoicePrefix, sequence, newInvoiceSuffix()),
    sequence,
    plan_id: batch.plan_id,
    phone: '',
    amount_tzs: batch.price_tzs,
    duration_seconds: batch.duration_seconds,
    data_limit_bytes: batch.data_limit_bytes,
    max_devices: batch.max_devices,
    download_kbps: batch.download_kbps,
    upload_kbps: batch.upload_kbps,
    status: 'paid',
    // Nobody holds a purchase key for it: the credentials go out in this answer only.
    purchase_key_hash: sha256Hex(randomToken()),
    provider: 'voucher',
    provider_reference: voucher.id,
    failure_reason: null,
    created_at: paidAt,
    updated_at: paidAt,
    paid_at: paidAt,
    site_id: batch.site_id,
    channel: 'voucher',
    sold_by: null,
    // The portal's language as the guest chose it: their reminders come in it.
    language,
    network: null,
    refunded_at: null,
    first_device_id: null,
  };
  await insertInvoice(tx, invoice);
  const { grant, password } = await issue(tx, deps, { invoice, paidAt: now });
  await insertPayment(tx, {
    id: uuid(),
    invoice_id: invoice.id,
    channel: 'voucher',
    provider: 'voucher',
    provider_reference: voucher.id,
    amount_tzs: invoice.amount_tzs,
    phone: null,
    event_id: `voucher:${voucher.id}`,
    paid_at: paidAt,
    kind: 'sale',
  });
  await setRedemption(tx, voucher.id, invoice.id, grant.id);
  return { username: grant.username, password, expiresAt: grant.expires_at, planId: batch.plan_id };
}
