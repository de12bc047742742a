import type { Db } from '../db/index.js';
import { randomToken, sha256Hex } from '../lib/crypto.js';
import { normalisePhone } from '../lib/phone.js';
import { recordAudit, type WifiActor } from './audit.js';
import { counterErrors } from './counter.errors.js';
import { selectGrants } from './counter.store.js';
import { plainList, type ListFilter } from './list-filter.store.js';
import type { WifiDeps } from './deps.js';
import { wifiErrors } from './errors.js';
import { presentGrant, revoke, type GrantRow } from './grants.js';
import { extendGrantRow, findGrant, findGrantByUsername } from './grants.store.js';
import { ADMIN_LIST_LIMIT } from './limits.js';
import { findPlan } from './plans.store.js';
import { networkOf, newInvoice } from './purchases.js';
import { findInvoice, findInvoiceByNumber, type InvoiceRow } from './purchases.store.js';
import { markPaid, sendCredentials, settlePayment } from './settlement.js';
import { EVERY_SITE, inScope, sitesOf, type SiteScope, type SiteView } from './sites.js';

/**
 * The counter tools (DESIGN.md §4.8): what staff do for a guest in front of them. Each one is
 * written to the audit trail in the transaction that makes its change; whoever calls passes the
 * actor (`staffActor` for the admin API, `cliActor` for the CLI) and the sites their role covers.
 */

type Deps = Pick<WifiDeps, 'db' | 'clock' | 'config' | 'vault' | 'notifier' | 'log' | 'outcomes'>;

/** Who acts, and the sites their role covers (null: every site). */
export interface Staff {
  actor: WifiActor;
  scope: SiteScope;
}

/** The provider of a counter sale's invoice and payment: no payment provider was involved. */
export const COUNTER_PROVIDER = 'counter';
/** The provider of a payment recorded by a staff member marking an invoice paid by hand. */
export const BY_HAND_PROVIDER = 'by_hand';

/** An invoice as staff see it (never the purchase key's hash). */
export const presentInvoice = (i: InvoiceRow) => ({
  id: i.id,
  number: i.number,
  plan_id: i.plan_id,
  phone: i.phone,
  amount_tzs: i.amount_tzs,
  status: i.status,
  channel: i.channel,
  sold_by: i.sold_by,
  provider: i.provider,
  provider_reference: i.provider_reference,
  failure_reason: i.failure_reason,
  created_at: i.created_at,
  paid_at: i.paid_at,
  refunded_at: i.refunded_at,
  site_id: i.site_id,
});

export interface CounterIssueRequest {
  plan_id?: unknown;
  phone?: unknown;
  channel?: unknown;
  amount_tzs?: unknown;
}

const MAX_CASH_TZS = 10_000_000;
const wholeIn = (v: unknown, min: number, max: number): v is number =>
  typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;

/** A counter sale's values, checked (422 for the first bad one). */
function parseIssue(deps: Pick<WifiDeps, 'config'>, request: CounterIssueRequest) {
  if (typeof request.plan_id !== 'string' || request.plan_id === '') throw counterErrors.planInvalid();
  let phone: string | null = null;
  if (request.phone !== undefined && request.phone !== null && request.phone !== '') {
    phone =
      typeof request.phone === 'string'
        ? normalisePhone(request.phone, deps.config.defaultCountryCode)
        : null;
    if (phone === null) throw wifiErrors.invalidPhone();
  }
  const channel = request.channel;
  if (channel !== 'cash' && channel !== 'complimentary') throw counterErrors.channelInvalid();
  let amount = 0;
  if (channel === 'cash') {
    if (!wholeIn(request.amount_tzs, 1, MAX_CASH_TZS)) throw counterErrors.cashAmountInvalid();
    amount = request.amount_tzs;
  } else if (request.amount_tzs !== undefined && request.amount_tzs !== 0) {
    throw counterErrors.complimentaryAmount();
  }
  return { planId: request.plan_id, phone, channel, amount };
}

export interface CounterSale {
  invoice: InvoiceRow;
  grant: GrantRow;
  /** Shown this once (and sent by SMS when the sale has a phone). */
  password: string;
}

/**
 * Access sold at the counter for cash, or given away: an invoice (channel `cash` or
 * `complimentary`, sold by the staff member, phone '' when none was given), its payment (the cash
 * taken; 0 for complimentary) and its grant, in one transaction through the same `markPaid` as a
 * mobile-money payment. Any plan of a site in scope may be sold, on sale on the portal or not,
 * unless it is archived. The
 * credentials go by SMS after the commit when a phone was given, as for a paid purchase.
 */
export async function issueAtCounter(
  deps: Deps,
  request: CounterIssueRequest,
  staff: Staff,
): Promise<CounterSale> {
  const sale = parseIssue(deps, request);
  const result = await deps.db.transaction().execute(async (tx) => {
    const plan = await findPlan(tx, sale.planId);
    if (!plan || !inScope(staff.scope, plan.site_id)) throw counterErrors.planInvalid();
    if (plan.archived_at !== null) throw wifiErrors.planArchived();
    const invoice = await newInvoice(tx, deps, plan, {
      phone: sale.phone ?? '',
      amount_tzs: sale.amount,
      // Nobody holds a purchase key for a counter sale: a hash of nothing anyone knows.
      purchase_key_hash: sha256Hex(randomToken()),
      provider: COUNTER_PROVIDER,
      channel: sale.channel,
      sold_by: staff.actor.id ?? staff.actor.label,
      // Sold at the counter: the guest's portal language is not known (reminders use the default).
      language: null,
    });
    const paid = await markPaid(tx, deps, invoice, deps.clock.now(), {
      provider: COUNTER_PROVIDER,
      providerReference: null,
      phone: sale.phone,
      eventId: `counter:${invoice.id}`,
    });
    if (paid.outcome !== 'paid') throw new Error('a new counter invoice could not be paid');
    await recordAudit(tx, deps.clock, {
      actor: staff.actor,
      action: 'grant.issue',
      target: { type: 'grant', id: paid.grant.id },
      siteId: plan.site_id,
      after: { invoice: presentInvoice(paid.invoice), grant: presentGrant(paid.grant) },
    });
    return { invoice: paid.invoice, grant: paid.grant, password: paid.password };
  });
  deps.log.info(
    {
      event: 'counter.issued',
      invoice_id: result.invoice.id,
      channel: sale.channel,
      amount_tzs: sale.amount,
    },
    'access issued at the counter',
  );
  deps.outcomes?.add('paid');
  if (sale.phone !== null) await sendCredentials(deps, result.invoice, result.grant, result.password);
  return result;
}

/** A grant by id or by its username (what the guest's slip shows). */
const grantByRef = async (db: Db, ref: string) =>
  (await findGrant(db, ref)) ?? (await findGrantByUsername(db, ref.trim().toLowerCase()));

/** The grant and the site it belongs to (its invoice's), or 404 outside the scope. */
async function grantInScope(db: Db, grantId: string, scope: SiteScope) {
  const grant = await grantByRef(db, grantId);
  const invoice = grant && (await findInvoice(db, grant.invoice_id));
  if (!grant || !invoice || !inScope(scope, invoice.site_id)) throw wifiErrors.grantNotFound();
  return { grant, siteId: invoice.site_id };
}

const MAX_EXTEND_SECONDS = 365 * 86400;

/** A staff action's reason when one may be given: a non-blank string of at most 500 characters. */
export function optionalReason(reason: unknown): string | null {
  if (reason === undefined || reason === null) return null;
  if (typeof reason !== 'string' || reason.trim() === '' || reason.length > 500)
    throw counterErrors.reasonOptionalInvalid();
  return reason.trim();
}

export function requiredReason(reason: unknown): string {
  if (typeof reason !== 'string' || reason.trim() === '' || reason.length > 500)
    throw counterErrors.reasonInvalid();
  return reason.trim();
}

/**
 * More time on a grant: `seconds` are added to its expiry, or, for a grant whose time already ran
 * out, to now (the guest gets the time they were given, from now). A revoked grant stays revoked
 * (409). The expiry job will handle the grant again at its new expiry. RADIUS reads the expiry at
 * every Access-Request, so the next login (or re-authentication) gets the longer Session-Timeout;
 * a session online now keeps the Session-Timeout its router was given until it logs in again.
 */
export async function extendGrant(
  deps: Pick<WifiDeps, 'db' | 'clock' | 'log'>,
  grantId: string,
  request: { seconds?: unknown; reason?: unknown },
  staff: Staff,
): Promise<GrantRow> {
  if (!wholeIn(request.seconds, 60, MAX_EXTEND_SECONDS)) throw counterErrors.secondsInvalid();
  const seconds = request.seconds;
  const reason = optionalReason(request.reason);
  const grant = await deps.db.transaction().execute(async (tx) => {
    const { grant: before, siteId } = await grantInScope(tx, grantId, staff.scope);
    if (before.revoked_at !== null) throw wifiErrors.grantRevoked();
    const now = deps.clock.now().getTime();
    const from = Math.max(Date.parse(before.expires_at), now);
    await extendGrantRow(tx, before.id, new Date(from + seconds * 1000).toISOString());
    const after = (await findGrant(tx, before.id)) ?? before;
    await recordAudit(tx, deps.clock, {
      actor: staff.actor,
      action: 'grant.extend',
      target: { type: 'grant', id: before.id },
      siteId,
      reason,
      before: presentGrant(before),
      after: presentGrant(after),
    });
    return after;
  });
  deps.log.info({ event: 'grant.extended', grant_id: grant.id, seconds }, 'grant extended');
  return grant;
}

/**
 * A grant revoked by staff (`reason` optional, 'staff revoke' when absent): revoke() writes the
 * audit entry with the revocation and then disconnects the grant's live sessions.
 */
export async function revokeGrant(
  deps: Pick<WifiDeps, 'db' | 'clock' | 'coa' | 'log'>,
  grantId: string,
  request: { reason?: unknown },
  staff: Staff,
) {
  const reason = optionalReason(request.reason) ?? 'staff revoke';
  const grant = await grantByRef(deps.db, grantId);
  return revoke(deps, grant?.id ?? grantId, reason, staff);
}

/**
 * An invoice (by id or number) of a site in scope, or 404. Staff type a number off a receipt or an
 * SMS: it is taken in any case (numbers are upper-case: INVOICE_PREFIX and the suffix's alphabet).
 */
export async function invoiceInScope(db: Db, invoiceId: string, scope: SiteScope): Promise<InvoiceRow> {
  const typed = invoiceId.trim();
  const invoice =
    (await findInvoice(db, typed.toLowerCase())) ?? (await findInvoiceByNumber(db, typed.toUpperCase()));
  if (!invoice || !inScope(scope, invoice.site_id)) throw wifiErrors.invoiceNotFound();
  return invoice;
}

export interface RecheckResult {
  invoice: InvoiceRow;
  /** What the provider said: `pending` changes nothing. */
  providerStatus: 'succeeded' | 'failed' | 'pending';
  /** What settlement did with a succeeded/failed answer (as for a webhook), else null. */
  outcome: string | null;
}

/**
 * Asks the invoice's own provider (with its site's account when it has one) now what became of an
 * unpaid mobile-money invoice, with the status query the reconciliation job uses (jobs.ts), and
 * settles what it learns exactly as a webhook would (grant, payment, credentials SMS). A provider
 * that cannot say is 502, and nothing changes. The entry is written after settlement's own
 * transaction: the provider is asked outside any.
 */
export async function recheckInvoice(
  deps: Deps & Pick<WifiDeps, 'payments'>,
  invoiceId: string,
  staff: Staff,
): Promise<RecheckResult> {
  const before = await invoiceInScope(deps.db, invoiceId, staff.scope);
  if (before.status === 'paid') throw counterErrors.invoiceAlreadyPaid();
  // The provider that took its prompt (PAYMENT_PROVIDERS may name several), while it is configured.
  if (before.channel !== 'mobile_money' || !deps.payments.names.includes(before.provider))
    throw counterErrors.invoiceNotRecheckable();
  const status = await deps.payments
    .queryStatus({
      provider: before.provider,
      siteId: before.site_id,
      number: before.number,
      amountTzs: before.amount_tzs,
      phone: before.phone,
      providerReference: before.provider_reference,
      network: networkOf(before),
    })
    .catch((err: unknown) => ({ status: 'unknown' as const, detail: String(err) }));
  if (status.status === 'unknown') {
    deps.log.warn(
      { event: 'counter.recheck_unknown', invoice_id: before.id, detail: status.detail },
      'the provider could not say',
    );
    throw counterErrors.providerUnknown();
  }
  const outcome = status.status === 'pending' ? null : (await settlePayment(deps, status.event)).outcome;
  const invoice = (await findInvoice(deps.db, before.id)) ?? before;
  await recordAudit(deps.db, deps.clock, {
    actor: staff.actor,
    action: 'invoice.recheck',
    target: { type: 'invoice', id: invoice.id },
    siteId: invoice.site_id,
    reason: `provider says ${status.status}`,
    before: presentInvoice(before),
    after: presentInvoice(invoice),
  });
  return { invoice, providerStatus: status.status, outcome };
}

/**
 * An unpaid invoice marked paid by a staff member (say the guest shows the provider's receipt and
 * the callback never came): settled as a payment is (grant issued, payment of the invoice's
 * amount and channel recorded with provider `by_hand`,
 * credentials SMS after the commit), with the reason in the audit entry.
 */
export async function markInvoicePaid(
  deps: Deps,
  invoiceId: string,
  request: { reason?: unknown },
  staff: Staff,
): Promise<CounterSale> {
  const reason = requiredReason(request.reason);
  const sale = await deps.db.transaction().execute(async (tx) => {
    const before = await invoiceInScope(tx, invoiceId, staff.scope);
    if (before.status === 'paid') throw counterErrors.invoiceAlreadyPaid();
    const paid = await markPaid(tx, deps, before, deps.clock.now(), {
      provider: BY_HAND_PROVIDER,
      providerReference: null,
      phone: before.phone === '' ? null : before.phone,
      eventId: `by_hand:${before.id}`,
    });
    if (paid.outcome !== 'paid') throw counterErrors.invoiceAlreadyPaid();
    await recordAudit(tx, deps.clock, {
      actor: staff.actor,
      action: 'invoice.mark_paid',
      target: { type: 'invoice', id: before.id },
      siteId: before.site_id,
      reason,
      before: presentInvoice(before),
      after: { ...presentInvoice(paid.invoice), grant_id: paid.grant.id },
    });
    return { invoice: paid.invoice, grant: paid.grant, password: paid.password };
  });
  deps.log.info({ event: 'invoice.marked_paid', invoice_id: sale.invoice.id }, 'invoice marked paid by hand');
  deps.outcomes?.add('paid');
  if (sale.invoice.phone !== '') await sendCredentials(deps, sale.invoice, sale.grant, sale.password);
  return sale;
}

/**
 * GET /api/v1/admin/grants: the grants of the sites in view, newest first; without a filter the
 * spec's plain list (at most 200), with one the admin lists' search, state, window and page.
 */
export async function recentGrants(
  deps: Pick<WifiDeps, 'db' | 'clock'>,
  view: SiteView = EVERY_SITE,
  filter: ListFilter = plainList(ADMIN_LIST_LIMIT),
) {
  const now = deps.clock.now().toISOString();
  const rows = await selectGrants(deps.db, filter, await sitesOf(deps.db, view), now);
  return rows.map((r) => ({
    ...presentGrant(r),
    live: r.revoked_at === null && r.expires_at > now,
    invoice_number: r.invoice_number,
    phone: r.phone,
    plan_id: r.plan_id,
    plan_name: r.plan_name,
    channel: r.channel,
    amount_tzs: r.amount_tzs,
    refunded_at: r.refunded_at,
    site_id: r.site_id,
  }));
}
