import { uuid } from '../lib/crypto.js';
import { recordAudit } from './audit.js';
import { counterErrors } from './counter.errors.js';
import { BY_HAND_PROVIDER, invoiceInScope, presentInvoice, requiredReason, type Staff } from './counter.js';
import { isUniqueViolation } from './db-errors.js';
import type { WifiDeps } from './deps.js';
import { disconnectGrant, type CoaOutcome } from './disconnect.js';
import { presentGrant, type GrantRow } from './grants.js';
import { findGrant, findGrantByInvoice, markRevoked } from './grants.store.js';
import { findInvoice, markInvoiceRefunded, type InvoiceRow } from './purchases.store.js';
import { presentAnswers } from './sessions.present.js';
import { findSalePayment, insertPayment, type PaymentRow } from './settlement.store.js';

/**
 * Refunds by hand (docs/decisions/0035-refunds.md): a staff member records that a paid sale's
 * money went back to the guest (cash from the till, or a reversal the venue made in the
 * mobile-money provider's own dashboard: no provider is asked to refund anything). The whole sale
 * is refunded: a payments row of kind `refund` with the sale's amount negated (same channel), the
 * invoice marked refunded (its status stays `paid`), its grant revoked, and one audit entry, in one
 * transaction; then the grant's live sessions are disconnected, as a revoke does.
 */

/** The grant's revocation reason when its sale was refunded. */
export const REFUND_REVOKE_REASON = 'refunded';

export interface Refund {
  invoice: InvoiceRow;
  /** The refund's payments row (negative amount). */
  payment: PaymentRow;
  /** The invoice's grant, revoked (null for an invoice without one). */
  grant: GrantRow | null;
  disconnect: CoaOutcome;
}

/** A refund's payments row as staff see it. */
export const presentRefundPayment = (p: PaymentRow) => ({
  id: p.id,
  invoice_id: p.invoice_id,
  kind: p.kind,
  channel: p.channel,
  amount_tzs: p.amount_tzs,
  provider: p.provider,
  paid_at: p.paid_at,
});

/** A refund as the admin API and the CLI answer it: what the routers said of its sessions too. */
export const presentRefund = (r: Refund) => ({
  invoice: presentInvoice(r.invoice),
  refund: presentRefundPayment(r.payment),
  grant: r.grant && presentGrant(r.grant),
  disconnect: { status: r.disconnect.status, sessions: presentAnswers(r.disconnect.sessions) },
});

/**
 * Refunds a paid invoice (by id or number, of a site in scope) in full. 409 when it is not paid,
 * already refunded (a second click, a retried request, two at once: the conditional update and
 * the unique (invoice_id, kind) of payments let one through), or took no money (complimentary).
 */
export async function refundInvoice(
  deps: Pick<WifiDeps, 'db' | 'clock' | 'coa' | 'log'>,
  invoiceId: string,
  request: { reason?: unknown },
  staff: Staff,
): Promise<Refund> {
  const reason = requiredReason(request.reason);
  let done: Omit<Refund, 'disconnect'>;
  try {
    done = await deps.db.transaction().execute(async (tx) => {
      const before = await invoiceInScope(tx, invoiceId, staff.scope);
      if (before.status !== 'paid') throw counterErrors.invoiceNotPaid();
      if (before.refunded_at !== null) throw counterErrors.invoiceAlreadyRefunded();
      const sale = await findSalePayment(tx, before.id);
      if (!sale || sale.amount_tzs <= 0) throw counterErrors.invoiceNoMoney();
      const now = deps.clock.now().toISOString();
      if (!(await markInvoiceRefunded(tx, before.id, now))) throw counterErrors.invoiceAlreadyRefunded();
      const payment: PaymentRow = {
        id: uuid(),
        invoice_id: before.id,
        kind: 'refund',
        channel: sale.channel,
        provider: BY_HAND_PROVIDER,
        provider_reference: null,
        amount_tzs: -sale.amount_tzs,
        phone: sale.phone,
        event_id: `refund:${before.id}`,
        paid_at: now,
      };
      await insertPayment(tx, payment);
      const grantBefore = await findGrantByInvoice(tx, before.id);
      if (grantBefore) await markRevoked(tx, grantBefore.id, now, REFUND_REVOKE_REASON);
      const grant = grantBefore ? ((await findGrant(tx, grantBefore.id)) ?? grantBefore) : null;
      const invoice = (await findInvoice(tx, before.id)) ?? before;
      await recordAudit(tx, deps.clock, {
        actor: staff.actor,
        action: 'invoice.refund',
        target: { type: 'invoice', id: before.id },
        siteId: before.site_id,
        reason,
        before: { ...presentInvoice(before), grant: grantBefore ? presentGrant(grantBefore) : null },
        after: {
          ...presentInvoice(invoice),
          grant: grant ? presentGrant(grant) : null,
          refund: presentRefundPayment(payment),
        },
      });
      return { invoice, payment, grant };
    });
  } catch (err) {
    // Two at once on PostgreSQL: the other refund's payment row committed between our reads.
    if (isUniqueViolation(err)) throw counterErrors.invoiceAlreadyRefunded();
    throw err;
  }
  deps.log.info(
    { event: 'invoice.refunded', invoice_id: done.invoice.id, amount_tzs: done.payment.amount_tzs },
    'invoice refunded by hand',
  );
  const disconnect: CoaOutcome = done.grant
    ? await disconnectGrant(deps, done.grant.id, REFUND_REVOKE_REASON)
    : { status: 'no_sessions', sessions: [] };
  return { ...done, disconnect };
}
