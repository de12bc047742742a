import { sql, type SqlBool } from 'kysely';
import type { Db } from '../db/index.js';
import { searchAny, type ListFilter } from './list-filter.store.js';

/**
 * Admin lists: newest first, at most `filter.limit` rows from `filter.offset` (wifi-access-api.md
 * §4.3; the filters are issue 21's additions), of the invoices of `sites` (null: every site).
 */
type Sites = readonly string[] | null;

export const listGuests = (db: Db, filter: ListFilter, sites: Sites) =>
  db
    .selectFrom('invoices')
    .$if(sites !== null, (q) => q.where('site_id', 'in', sites ?? []))
    .$if(filter.q !== undefined, (w) => w.where(searchAny(filter.q ?? '', ['phone'], ['phone'])))
    .$if(filter.from !== undefined, (w) => w.where('created_at', '>=', filter.from ?? ''))
    .$if(filter.to !== undefined, (w) => w.where('created_at', '<', filter.to ?? ''))
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
    .orderBy('phone')
    .limit(filter.limit)
    .offset(filter.offset)
    .execute();

/** Who sold an invoice at the counter, in words: the staff member's email (else name), or `cli:<user>`. */
const soldByName = sql<
  string | null
>`coalesce(seller.email, nullif(seller.display_name, ''), invoices.sold_by)`.as('sold_by_name');

/** The seller filter: `invoices.sold_by` as given, or the staff member whose email it is. */
const soldBy = (seller: string) =>
  sql<SqlBool>`(invoices.sold_by = ${seller} or lower(seller.email) = ${seller.toLowerCase()})`;

export const listInvoices = (db: Db, filter: ListFilter, sites: Sites) =>
  db
    .selectFrom('invoices')
    .leftJoin('plans', 'plans.id', 'invoices.plan_id')
    .leftJoin('users as seller', 'seller.id', 'invoices.sold_by')
    .$if(filter.seller !== undefined, (w) => w.where(soldBy(filter.seller ?? '')))
    .$if(sites !== null, (q) => q.where('invoices.site_id', 'in', sites ?? []))
    .$if(filter.q !== undefined, (w) =>
      w.where(
        searchAny(
          filter.q ?? '',
          ['invoices.number', 'invoices.phone', 'invoices.provider_reference', 'plans.name'],
          ['invoices.phone'],
        ),
      ),
    )
    .$if(filter.status !== undefined, (w) => w.where('invoices.status', '=', filter.status ?? ''))
    .$if(filter.plan !== undefined, (w) => w.where('invoices.plan_id', '=', filter.plan ?? ''))
    .$if(filter.from !== undefined, (w) => w.where('invoices.created_at', '>=', filter.from ?? ''))
    .$if(filter.to !== undefined, (w) => w.where('invoices.created_at', '<', filter.to ?? ''))
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
      soldByName,
      'invoices.refunded_at',
    ])
    .orderBy('invoices.created_at', 'desc')
    .orderBy('invoices.sequence', 'desc')
    .limit(filter.limit)
    .offset(filter.offset)
    .execute();

export const listPayments = (db: Db, filter: ListFilter, sites: Sites) =>
  db
    .selectFrom('payments')
    .innerJoin('invoices', 'invoices.id', 'payments.invoice_id')
    .leftJoin('users as seller', 'seller.id', 'invoices.sold_by')
    .$if(filter.seller !== undefined, (w) => w.where(soldBy(filter.seller ?? '')))
    .$if(sites !== null, (q) => q.where('invoices.site_id', 'in', sites ?? []))
    .$if(filter.q !== undefined, (w) =>
      w.where(
        searchAny(
          filter.q ?? '',
          ['invoices.number', 'payments.phone', 'payments.provider_reference'],
          ['payments.phone'],
        ),
      ),
    )
    .$if(filter.kind !== undefined, (w) => w.where('payments.channel', '=', filter.kind ?? ''))
    .$if(filter.plan !== undefined, (w) => w.where('invoices.plan_id', '=', filter.plan ?? ''))
    .$if(filter.from !== undefined, (w) => w.where('payments.paid_at', '>=', filter.from ?? ''))
    .$if(filter.to !== undefined, (w) => w.where('payments.paid_at', '<', filter.to ?? ''))
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
      'invoices.sold_by',
      soldByName,
    ])
    .orderBy('payments.paid_at', 'desc')
    .orderBy('payments.id')
    .limit(filter.limit)
    .offset(filter.offset)
    .execute();

const count = async (q: { executeTakeFirstOrThrow(): Promise<{ n: number | string | bigint }> }) =>
  Number((await q.executeTakeFirstOrThrow()).n);

export const countDevices = (db: Db, sites: Sites) =>
  count(
    db
      .selectFrom('devices')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      // Archived routers are put away (docs/decisions/0037): not counted.
      .where('archived_at', 'is', null)
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
