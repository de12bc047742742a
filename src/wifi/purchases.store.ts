import { PostgresAdapter, sql, type Selectable, type Updateable } from 'kysely';
import { marker, prepared, type Db } from '../db/index.js';
import type { InvoicesTable, PurchaseKeysTable } from '../db/tables/wifi.js';

export type InvoiceRow = Selectable<InvoicesTable>;
export type InvoiceStatus = 'pending' | 'paid' | 'failed' | 'expired';

export async function insertInvoice(db: Db, row: InvoiceRow): Promise<void> {
  await db.insertInto('invoices').values(row).execute();
}

export function findInvoice(db: Db, id: string): Promise<InvoiceRow | undefined> {
  return db.selectFrom('invoices').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findInvoiceByNumber(db: Db, number: string): Promise<InvoiceRow | undefined> {
  return db.selectFrom('invoices').selectAll().where('number', '=', number).executeTakeFirst();
}

/** The next invoice sequence number (1, 2, …); the unique index on `sequence` guards races. */
export async function nextSequence(db: Db): Promise<number> {
  const row = await db
    .selectFrom('invoices')
    .select((eb) => eb.fn.max('sequence').as('last'))
    .executeTakeFirst();
  return (row?.last ?? 0) + 1;
}

/** Updates an invoice if its status is one of `from`; true when it did. */
export async function updateInvoiceIf(
  db: Db,
  id: string,
  from: readonly InvoiceStatus[],
  changes: Updateable<InvoicesTable>,
): Promise<boolean> {
  const result = await db
    .updateTable('invoices')
    .set(changes)
    .where('id', '=', id)
    .where('status', 'in', from)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Marks a paid invoice refunded at `at`; false when it is not paid or already refunded. */
export async function markInvoiceRefunded(db: Db, id: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable('invoices')
    .set({ refunded_at: at, updated_at: at })
    .where('id', '=', id)
    .where('status', '=', 'paid')
    .where('refunded_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * The router on which the guest of the invoice's grant came online first (migration 0040): set
 * by the grant's first recorded session, kept by every later one (the update then matches no row
 * and writes nothing). Not a change of the invoice's state: `updated_at` stays. Runs for every new
 * RADIUS session of a grant, so compiled once.
 */
export const setFirstRouter = prepared(
  (db, invoiceId: string, deviceId: string) =>
    db
      .updateTable('invoices')
      .set({ first_device_id: deviceId })
      .where('id', '=', invoiceId)
      .where('first_device_id', 'is', null),
  [marker('invoice'), marker('device')],
);

/**
 * setFirstRouter for several sales at once (invoice id, router id; one pair per invoice): on
 * PostgreSQL one `UPDATE … FROM unnest(…)`, elsewhere one by one.
 */
export async function setFirstRouters(db: Db, pairs: readonly (readonly [string, string])[]): Promise<void> {
  if (pairs.length < 2 || !(db.getExecutor().adapter instanceof PostgresAdapter)) {
    for (const [invoiceId, deviceId] of pairs) await setFirstRouter(db, invoiceId, deviceId);
    return;
  }
  const pairsTable = sql<{ p_invoice: string; p_device: string }>`(select * from unnest(${pairs.map(
    ([invoiceId]) => invoiceId,
  )}::text[], ${pairs.map(([, deviceId]) => deviceId)}::text[]) as r(p_invoice, p_device))`;
  await db
    .updateTable('invoices')
    .from(pairsTable.as('v'))
    .set({ first_device_id: sql.ref('v.p_device') })
    .where('invoices.id', '=', sql.ref<string>('v.p_invoice'))
    .where('invoices.first_device_id', 'is', null)
    .execute();
}

/** pending → expired for invoices created at or before `createdBefore`; returns how many. */
export async function expirePending(db: Db, createdBefore: string, now: string): Promise<number> {
  const result = await db
    .updateTable('invoices')
    .set({ status: 'expired', updated_at: now })
    .where('status', '=', 'pending')
    .where('created_at', '<=', createdBefore)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Invoices in the given statuses created within [createdAfter, createdBefore], oldest first. */
export function selectInvoices(
  db: Db,
  filter: {
    statuses: readonly InvoiceStatus[];
    provider: string;
    createdAfter: string;
    createdBefore: string;
    limit: number;
  },
): Promise<InvoiceRow[]> {
  return db
    .selectFrom('invoices')
    .selectAll()
    .where('status', 'in', filter.statuses)
    .where('provider', '=', filter.provider)
    .where('created_at', '>=', filter.createdAfter)
    .where('created_at', '<=', filter.createdBefore)
    .orderBy('created_at')
    .limit(filter.limit)
    .execute();
}

/**
 * Invoices of these providers whose payment may still arrive: pending, expired, or failed only
 * because the payment prompt could not be confirmed (`failure_reason` starting with
 * `uncertainPrefix`), created within [createdAfter, createdBefore]. Pending ones first, then
 * newest first: a guest is most likely waiting on those, and abandoned invoices cannot crowd them
 * out of a batch.
 */
export function selectInvoicesToReconcile(
  db: Db,
  filter: {
    providers: readonly string[];
    createdAfter: string;
    createdBefore: string;
    uncertainPrefix: string;
    limit: number;
  },
): Promise<InvoiceRow[]> {
  return db
    .selectFrom('invoices')
    .selectAll()
    .where('provider', 'in', filter.providers)
    .where('created_at', '>=', filter.createdAfter)
    .where('created_at', '<=', filter.createdBefore)
    .where((eb) =>
      eb.or([
        eb('status', 'in', ['pending', 'expired']),
        eb.and([eb('status', '=', 'failed'), eb('failure_reason', 'like', `${filter.uncertainPrefix}%`)]),
      ]),
    )
    .orderBy((eb) => eb.case().when('status', '=', 'pending').then(0).else(1).end())
    .orderBy('created_at', 'desc')
    .limit(filter.limit)
    .execute();
}

export function findPurchaseKey(db: Db, keyHash: string): Promise<Selectable<PurchaseKeysTable> | undefined> {
  return db.selectFrom('purchase_keys').selectAll().where('key_hash', '=', keyHash).executeTakeFirst();
}

/** Points a purchase key at an invoice, creating the key's row the first time. */
export async function bindPurchaseKey(
  db: Db,
  keyHash: string,
  invoiceId: string,
  now: string,
  exists: boolean,
): Promise<void> {
  if (exists) {
    await db
      .updateTable('purchase_keys')
      .set({ invoice_id: invoiceId, updated_at: now })
      .where('key_hash', '=', keyHash)
      .execute();
  } else {
    await db
      .insertInto('purchase_keys')
      .values({ key_hash: keyHash, invoice_id: invoiceId, created_at: now, updated_at: now })
      .execute();
  }
}
