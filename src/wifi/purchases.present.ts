import type { PurchaseStatus } from './purchases.js';
import type { InvoiceRow } from './purchases.store.js';

/** Purchase start result, wifi-access-api.md §2. */
export function presentPurchaseStart(invoice: InvoiceRow): Record<string, unknown> {
  return {
    invoice_id: invoice.id,
    invoice_number: invoice.number,
    status: invoice.status,
    amount_tzs: invoice.amount_tzs,
  };
}

/** The poll response (DESIGN.md §4.2): never the key hash, the phone or provider details. */
export function presentPurchaseStatus({ invoice, credentials }: PurchaseStatus): Record<string, unknown> {
  return {
    ...presentPurchaseStart(invoice),
    plan_id: invoice.plan_id,
    ...(credentials && {
      credentials: {
        username: credentials.username,
        password: credentials.password,
        expires_at: credentials.expiresAt,
      },
    }),
  };
}
