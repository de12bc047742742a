import type { Db } from '../db/index.js';

/**
 * Admin lists: newest first, at most `limit` rows (wifi-access-api.md §4.3), of the invoices of
 * `sites` (null: every site).
 */
type Sites = readonly string[] | null;

export const listGuests = (db: Db, limit: number, sites: Sites) =>
  db
    .selectFrom('invoices')
    .$if(sites !== null, (q) => q.where('site_id', 'in', sites ?? []))
    .select((eb) => [
      'phone',
      eb.fn.countAll<number | string>().as('invoices'),
      eb.fn
        .sum<number | string | null>(eb.case().when('status', '=', 'paid').then(1).else(0).end())
        .as('purchases'),
      eb.fn
        .sum<number | string | null>(
          eb
            .case()
            .when(eb.and([eb('status', '=', 'paid'), eb('refunded_at', 'is', null)]))
            .then(eb.ref('amount_tzs'))
            .else(0)
            .end(),
        )
        .as('spent_tzs'),
      eb.fn.min<string>('created_at').as('first_seen'),
      eb.fn.max<string>('created_at').as('last_seen'),
    ])
    .groupBy('phone')
    .orderBy('last_seen', 'desc')
    .limit(limit)
    .execute();

export const listInvoices = (db: Db, limit: number, sites: Sites) =>
  db
    .selectFrom('invoices')
    .leftJoin('plans', 'plans.id', 'invoices.plan_id')
    .$if(sites !== null, (q) => q.where('invoices.site_id', 'in', sites ?? []))
    .select([
      'invoices.id',
      'invoices.number',
      'invoices.plan_id',
      'plans.name as plan_name',
      'invoices.phone',
      'invoices.amount_tzs',
      'invoices.status',
      'invoices.provider',
      'invoices.provider_reference',
      'invoices.failure_reason',
      'invoices.created_at',
      'invoices.paid_at',
      'invoices.site_id',
      'invoices.channel',
      'invoices.sold_by',
      'invoices.refunded_at',
    ])
    .orderBy('invoices.created_at', 'desc')
    .orderBy('invoices.sequence', 'desc')
    .limit(limit)
    .execute();

export const listPayments = (db: Db, limit: number, sites: Sites) =>
  db
    .selectFrom('payments')
    .innerJoin('invoices', 'invoices.id', 'payments.invoice_id')
    .$if(sites !== null, (q) => q.where('invoices.site_id', 'in', sites ?? []))
    .select([
      'payments.id',
      'payments.invoice_id',
      'invoices.number as invoice_number',
      'payments.provider',
      'payments.provider_reference',
      'payments.amount_tzs',
      'payments.phone',
      'payments.event_id',
      'payments.paid_at',
      'invoices.site_id',
      'payments.channel',
      'payments.kind',
    ])
    .orderBy('payments.paid_at', 'desc')
    .limit(limit)
    .execute();

const count = async (q: { executeTakeFirstOrThrow(): Promise<{ n: number | string | bigint }> }) =>
  Number((await q.executeTakeFirstOrThrow()).n);

export const countDevices = (db: Db, sites: Sites) =>
  count(
    db
      .selectFrom('devices')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .$if(sites !== null, (q) => q.where('site_id', 'in', sites ?? [])),
  );

export const countPendingInvoices = (db: Db, sites: Sites) =>
  count(
    db
      .selectFrom('invoices')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('status', '=', 'pending')
      .$if(sites !== null, (q) => q.where('site_id', 'in', sites ?? [])),
  );

/** The ids of the invoices of `sites`, for the rows that hang off an invoice. */
const invoicesOf = (db: Db, sites: readonly string[]) =>
  db.selectFrom('invoices').select('invoices.id').where('invoices.site_id', 'in', sites);

export const countLiveGrants = (db: Db, now: string, sites: Sites) =>
  count(
    db
      .selectFrom('grants')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', now)
      .$if(sites !== null, (q) => q.where('grants.invoice_id', 'in', invoicesOf(db, sites ?? []))),
  );

/** Payments recorded since `since`, per channel and kind (sale, refund): how many and how much. */
export async function salesSince(
  db: Db,
  since: string,
  sites: Sites,
): Promise<{ channel: string; kind: string; n: number; total_tzs: number }[]> {
  const rows = await db
    .selectFrom('payments')
    .select((eb) => [
      'channel',
      'kind',
      eb.fn.countAll<number | string>().as('n'),
      eb.fn.sum<number | string | null>('amount_tzs').as('total'),
    ])
    .where('paid_at', '>=', since)
    .$if(sites !== null, (q) => q.where('payments.invoice_id', 'in', invoicesOf(db, sites ?? [])))
    .groupBy(['channel', 'kind'])
    .execute();
  return rows.map((r) => ({
    channel: r.channel,
    kind: r.kind,
    n: Number(r.n),
    total_tzs: Number(r.total ?? 0),
  }));
}
