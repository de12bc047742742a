import type { Selectable } from 'kysely';
import type { Db } from '../db/index.js';
import type { PaymentEventsTable, PaymentsTable } from '../db/tables/wifi.js';

export type PaymentRow = Selectable<PaymentsTable>;
export type PaymentEventRow = Selectable<PaymentEventsTable>;

export function findPaymentEvent(
  db: Db,
  provider: string,
  eventId: string,
): Promise<PaymentEventRow | undefined> {
  return db
    .selectFrom('payment_events')
    .selectAll()
    .where('provider', '=', provider)
    .where('event_id', '=', eventId)
    .executeTakeFirst();
}

/** Records a handled event; the unique (provider, event_id) constraint is the de-duplication guard. */
export async function insertPaymentEvent(db: Db, row: PaymentEventRow): Promise<void> {
  await db.insertInto('payment_events').values(row).execute();
}

export async function insertPayment(db: Db, row: PaymentRow): Promise<void> {
  await db.insertInto('payments').values(row).execute();
}

/** The payment that paid an invoice (kind `sale`; an invoice has at most one, and one refund). */
export function findSalePayment(db: Db, invoiceId: string): Promise<PaymentRow | undefined> {
  return db
    .selectFrom('payments')
    .selectAll()
    .where('invoice_id', '=', invoiceId)
    .where('kind', '=', 'sale')
    .executeTakeFirst();
}
