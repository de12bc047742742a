import { sql, type ExpressionBuilder, type Expression, type SqlBool } from 'kysely';
import type { Db, DB } from '../db/index.js';

/**
 * The reports' reads (docs/decisions/0036-reports.md). Each returns a query for reports.run.ts to
 * run off the event loop. Time is cut into UTC quarter hours by plain text functions on the
 * stored ISO-8601 instants (`substr`, the same on SQLite and PostgreSQL): `hour` is
 * `YYYY-MM-DDTHH`, `quarter` 0-3. Every real time zone's offset is a whole number of quarter
 * hours, so each quarter hour lies in one local hour of every zone; reports.ts folds them into
 * the site's local days and hours.
 */

/** One site's rows between two instants: [from, to). */
export interface SiteRange {
  siteId: string;
  from: string;
  to: string;
}

const hourOf = (column: string) => sql<string>`substr(${sql.ref(column)}, 1, 13)`;
const quarterOf = (column: string) => sql<number>`cast(substr(${sql.ref(column)}, 15, 2) as integer) / 15`;
/** 1 for a refund (a negative payment row), else 0. */
const refundFlag = sql<number>`case when payments.amount_tzs < 0 then 1 else 0 end`;

/** `siteColumn` is one of the ranges' sites and `timeColumn` inside its range. */
function inRanges<T extends keyof DB>(
  eb: ExpressionBuilder<DB, T>,
  ranges: readonly SiteRange[],
  siteColumn: string,
  timeColumn: string,
): Expression<SqlBool> {
  if (ranges.length === 0) return sql<SqlBool>`1 = 0`;
  return eb.or(
    ranges.map(
      (r) =>
        sql<SqlBool>`(${sql.ref(siteColumn)} = ${r.siteId} and ${sql.ref(timeColumn)} >= ${r.from} and ${sql.ref(timeColumn)} < ${r.to})`,
    ),
  );
}

/** Payments (signed: refunds are negative rows) per site, quarter hour, channel and sign. */
export const revenueSlots = (db: Db, ranges: readonly SiteRange[]) =>
  db
    .selectFrom('payments')
    .innerJoin('invoices', 'invoices.id', 'payments.invoice_id')
    .where((eb) => inRanges(eb, ranges, 'invoices.site_id', 'payments.paid_at'))
    .select((eb) => [
      'invoices.site_id as site_id',
      hourOf('payments.paid_at').as('hour'),
      quarterOf('payments.paid_at').as('quarter'),
      'payments.channel as channel',
      refundFlag.as('refund'),
      eb.fn.countAll<number | string>().as('n'),
      eb.fn.sum<number | string>('payments.amount_tzs').as('total'),
    ])
    .groupBy([
      'invoices.site_id',
      hourOf('payments.paid_at'),
      quarterOf('payments.paid_at'),
      'payments.channel',
      refundFlag,
    ]);

/** Payments per plan of the invoice, and sign. */
export const revenueByPlan = (db: Db, ranges: readonly SiteRange[]) =>
  db
    .selectFrom('payments')
    .innerJoin('invoices', 'invoices.id', 'payments.invoice_id')
    .where((eb) => inRanges(eb, ranges, 'invoices.site_id', 'payments.paid_at'))
    .select((eb) => [
      'invoices.plan_id as key',
      refundFlag.as('refund'),
      eb.fn.countAll<number | string>().as('n'),
      eb.fn.sum<number | string>('payments.amount_tzs').as('total'),
    ])
    .groupBy(['invoices.plan_id', refundFlag]);

/**
 * Payments per router: the router of the first RADIUS session of the sale's grant (a sale whose
 * guest never came online has none: null), and sign.
 */
export const revenueByRouter = (db: Db, ranges: readonly SiteRange[]) =>
  db
    .selectFrom((qb) =>
      qb
        .selectFrom('payments')
        .innerJoin('invoices', 'invoices.id', 'payments.invoice_id')
        .leftJoin('grants', 'grants.invoice_id', 'invoices.id')
        .where((eb) => inRanges(eb, ranges, 'invoices.site_id', 'payments.paid_at'))
        .select((eb) => [
          eb
            .selectFrom('radius_sessions')
            .select('radius_sessions.device_id')
            .whereRef('radius_sessions.grant_id', '=', 'grants.id')
            .orderBy('radius_sessions.started_at')
            .orderBy('radius_sessions.id')
            .limit(1)
            .as('device_id'),
          refundFlag.as('refund'),
          'payments.amount_tzs as amount_tzs',
        ])
        .as('p'),
    )
    .select((eb) => [
      'p.device_id as key',
      'p.refund as refund',
      eb.fn.countAll<number | string>().as('n'),
      eb.fn.sum<number | string>('p.amount_tzs').as('total'),
    ])
    .groupBy(['p.device_id', 'p.refund']);

/** Mobile-money invoices (the payment funnel) per site, quarter hour of creation, and status. */
export const funnelSlots = (db: Db, ranges: readonly SiteRange[]) =>
  db
    .selectFrom('invoices')
    .where('invoices.channel', '=', 'mobile_money')
    .where((eb) => inRanges(eb, ranges, 'invoices.site_id', 'invoices.created_at'))
    .select((eb) => [
      'invoices.site_id as site_id',
      hourOf('invoices.created_at').as('hour'),
      quarterOf('invoices.created_at').as('quarter'),
      'invoices.status as status',
      eb.fn.countAll<number | string>().as('n'),
    ])
    .groupBy([
      'invoices.site_id',
      hourOf('invoices.created_at'),
      quarterOf('invoices.created_at'),
      'invoices.status',
    ]);

/** RADIUS sessions by their start, per site (of the router) and quarter hour, with their octets. */
export const sessionSlots = (db: Db, ranges: readonly SiteRange[]) =>
  db
    .selectFrom('radius_sessions')
    .innerJoin('devices', 'devices.id', 'radius_sessions.device_id')
    .where((eb) => inRanges(eb, ranges, 'devices.site_id', 'radius_sessions.started_at'))
    .select((eb) => [
      'devices.site_id as site_id',
      hourOf('radius_sessions.started_at').as('hour'),
      quarterOf('radius_sessions.started_at').as('quarter'),
      eb.fn.countAll<number | string>().as('n'),
      eb.fn.sum<number | string>('radius_sessions.input_octets').as('upload'),
      eb.fn.sum<number | string>('radius_sessions.output_octets').as('download'),
    ])
    .groupBy([
      'devices.site_id',
      hourOf('radius_sessions.started_at'),
      quarterOf('radius_sessions.started_at'),
    ]);

/** RADIUS sessions by their start, per router, with their octets. */
export const sessionsByRouter = (db: Db, ranges: readonly SiteRange[]) =>
  db
    .selectFrom('radius_sessions')
    .innerJoin('devices', 'devices.id', 'radius_sessions.device_id')
    .where((eb) => inRanges(eb, ranges, 'devices.site_id', 'radius_sessions.started_at'))
    .select((eb) => [
      'radius_sessions.device_id as key',
      eb.fn.countAll<number | string>().as('n'),
      eb.fn.sum<number | string>('radius_sessions.input_octets').as('upload'),
      eb.fn.sum<number | string>('radius_sessions.output_octets').as('download'),
    ])
    .groupBy('radius_sessions.device_id');

/** The guests who spent most (signed payments of their invoices), at most `limit`; sales without a phone are nobody's. */
export const topGuests = (db: Db, ranges: readonly SiteRange[], limit: number) =>
  db
    .selectFrom('payments')
    .innerJoin('invoices', 'invoices.id', 'payments.invoice_id')
    .where('invoices.phone', '!=', '')
    .where((eb) => inRanges(eb, ranges, 'invoices.site_id', 'payments.paid_at'))
    .select((eb) => [
      'invoices.phone as phone',
      eb.fn.sum<number | string>(sql<number>`1 - ${refundFlag}`).as('purchases'),
      eb.fn.sum<number | string>(refundFlag).as('refunds'),
      eb.fn.sum<number | string>('payments.amount_tzs').as('spent_tzs'),
    ])
    .groupBy('invoices.phone')
    .orderBy('spent_tzs', 'desc')
    .orderBy('invoices.phone')
    .limit(limit);

/** The voucher batches of `sites`, newest first, with their plan. */
export const voucherBatches = (db: Db, sites: readonly string[]) =>
  db
    .selectFrom('voucher_batches')
    .leftJoin('plans', 'plans.id', 'voucher_batches.plan_id')
    .where('voucher_batches.site_id', 'in', sites.length > 0 ? sites : [''])
    .select([
      'voucher_batches.id as id',
      'voucher_batches.site_id as site_id',
      'voucher_batches.created_at as created_at',
      'voucher_batches.prefix as prefix',
      'voucher_batches.count as count',
      'voucher_batches.revoked_at as revoked_at',
      'plans.name as plan_name',
      'plans.price_tzs as price_tzs',
    ])
    .orderBy('voucher_batches.created_at', 'desc')
    .orderBy('voucher_batches.id');

/** Codes per batch of `sites` and state; an unused code past its valid_until counts as expired. */
export const voucherStates = (db: Db, sites: readonly string[], now: string) =>
  db
    .selectFrom('vouchers')
    .innerJoin('voucher_batches', 'voucher_batches.id', 'vouchers.batch_id')
    .where('voucher_batches.site_id', 'in', sites.length > 0 ? sites : [''])
    .select((eb) => [
      'vouchers.batch_id as batch_id',
      eb
        .case()
        .when(
          eb.and([
            eb('vouchers.status', '=', 'unused'),
            eb('vouchers.valid_until', 'is not', null),
            eb('vouchers.valid_until', '<=', now),
          ]),
        )
        .then('expired')
        .else(eb.ref('vouchers.status'))
        .end()
        .as('state'),
      eb.fn.countAll<number | string>().as('n'),
    ])
    .groupBy(['vouchers.batch_id', 'state']);
