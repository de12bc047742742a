import {
  sql,
  type Compilable,
  type ExpressionBuilder,
  type Expression,
  type RawBuilder,
  type SqlBool,
} from 'kysely';
import type { Db, DB } from '../db/index.js';

/**
 * The reports' reads (docs/decisions/0036-reports.md, 0043-report-speed.md). Each returns a query
 * for reports.run.ts to run off the event loop. Reports by day or hour are read one local day of
 * one site at a time: reports.ts cuts each site's range into its local days (UTC instants found
 * with Node's zone data), the query lists them as a VALUES table `b`, and for each a correlated
 * subquery reads that range of an index and aggregates it there. So neither store sorts a year of
 * rows, and each site-day comes back as one row: its groups packed into one text (`packed`).
 */

/** One site's rows between two instants: [from, to). */
export interface SiteRange {
  siteId: string;
  from: string;
  to: string;
}

/** One local day of a site, or the part of it on one side of a UTC offset change: [from, to). */
export interface SiteDay extends SiteRange {
  /** The local day, as days since 1970-01-01. */
  day: number;
  /** The site's UTC offset throughout, in minutes. */
  offsetMinutes: number;
}

/** A stretch of time inside one local day of every site (between two sites' local midnights): [from, to). */
export interface Stretch {
  index: number;
  from: string;
  to: string;
}

/** A site-day's (or stretch's) groups: each group's fields joined by FIELD, the groups by GROUP; null without rows. */
export interface PackedRow {
  packed: string | null;
}

/** The separators of packed groups: control characters, which no id, channel or status holds. */
export const FIELD = '\u001f';
export const GROUP = '\u001e';

/** At most this many days per statement (5 parameters each: well inside both stores' limits). */
export const DAYS_PER_QUERY = 1000;

/** 1 for a refund (a negative payment row), else 0. */
const refundFlag = sql<number>`case when payments.amount_tzs < 0 then 1 else 0 end`;

/** A raw query in the form reports.run.ts runs. */
const compilable = <R>(db: Db, query: RawBuilder<R>): Compilable<R> => ({ compile: () => query.compile(db) });

/** `fields` (columns of the subquery `x`) as text, joined into one packed text per site-day. */
const packed = (fields: readonly string[]) =>
  sql<string | null>`string_agg(${sql.join(
    fields.map((f) => sql`cast(${sql.ref(`x.${f}`)} as text)`),
    sql` || ${FIELD} || `,
  )}, ${GROUP})`;

/** The site-days as the table `b (site_id, day, lo, hi, off)` (integers cast: PostgreSQL reads parameters as text). */
const siteDaysTable = (days: readonly SiteDay[]) =>
  sql`with b (site_id, day, lo, hi, off) as (values ${sql.join(
    days.map(
      (d) =>
        sql`(${d.siteId}, cast(${d.day} as integer), ${d.from}, ${d.to}, cast(${d.offsetMinutes} as integer))`,
    ),
  )})`;

/**
 * For each site-day of `days` (the table `b`), one row `site_id, day, packed`: the rows of `inner`
 * (a subquery correlated with `b`, whose `columns` are packed) packed into one text.
 */
const perSiteDay = (
  db: Db,
  days: readonly SiteDay[],
  columns: readonly string[],
  inner: RawBuilder<unknown>,
) =>
  compilable(
    db,
    sql<{ site_id: string; day: number } & PackedRow>`${siteDaysTable(days)}
    select b.site_id as site_id, b.day as day, (select ${packed(columns)} from (${inner}) x) as packed
    from b`,
  );

/** `siteColumn` is one of the ranges' sites and `timeColumn` inside its range. */
function inRanges<T extends keyof DB>(
  eb: ExpressionBuilder<DB, T>,
  ranges: readonly SiteRange[],
  siteColumn: string,
  timeColumn: string,
): Expression<SqlBool> {
  if (ranges.length === 0) return sql<SqlBool>`1 = 0`;
  // The sites and the bounds of all ranges first: indexes on the site and time columns read just them.
  const first = ranges.reduce((a, r) => (r.from < a ? r.from : a), ranges[0]?.from ?? '');
  const last = ranges.reduce((a, r) => (r.to > a ? r.to : a), ranges[0]?.to ?? '');
  return eb.and([
    sql<SqlBool>`${sql.ref(siteColumn)} in (${sql.join(ranges.map((r) => r.siteId))})`,
    sql<SqlBool>`${sql.ref(timeColumn)} >= ${first}`,
    sql<SqlBool>`${sql.ref(timeColumn)} < ${last}`,
    eb.or(
      ranges.map(
        (r) =>
          sql<SqlBool>`(${sql.ref(siteColumn)} = ${r.siteId} and ${sql.ref(timeColumn)} >= ${r.from} and ${sql.ref(timeColumn)} < ${r.to})`,
      ),
    ),
  ]);
}

/**
 * Payments (signed: refunds are negative rows) per stretch, packed per site, plan, router, channel,
 * seller and sign: `site, plan, router, channel, seller, refund, n, total`. The seller is the
 * invoice's `sold_by` (a counter sale's staff member, empty for a sale nobody at the counter made). A sale's router is the one its guest
 * first came online on (`invoices.first_device_id`, set by the first RADIUS session of its grant,
 * migration 0040); plan and router are empty for none. Stretches rather than site-days: payments
 * carry no site, so each is read once, and its invoice tells the site, plan and router.
 */
export const revenuePerStretch = (db: Db, stretches: readonly Stretch[], sites: readonly string[]) =>
  compilable(
    db,
    sql<{ stretch: number } & PackedRow>`with b (i, lo, hi) as (values ${sql.join(
      stretches.map((s) => sql`(cast(${s.index} as integer), ${s.from}, ${s.to})`),
    )})
    select b.i as stretch, (
      select ${packed(['site_id', 'plan_id', 'device_id', 'channel', 'seller', 'refund', 'n', 'total'])}
      from (
        select invoices.site_id as site_id, coalesce(invoices.plan_id, '') as plan_id,
          coalesce(invoices.first_device_id, '') as device_id,
          payments.channel as channel, coalesce(invoices.sold_by, '') as seller,
          ${refundFlag} as refund, count(*) as n, sum(payments.amount_tzs) as total
        -- A cross join keeps SQLite reading payments by time first (PostgreSQL plans it as any join).
        from payments cross join invoices
        where invoices.id = payments.invoice_id and payments.paid_at >= b.lo and payments.paid_at < b.hi
          and invoices.site_id in (${sql.join(sites.length > 0 ? sites : [''])})
        group by 1, 2, 3, 4, 5, 6
      ) x
    ) as packed
    from b`,
  );

/** Mobile-money invoices (the payment funnel) per site-day of creation, packed per status: `status, n`. */
export const funnelPerDay = (db: Db, days: readonly SiteDay[]) =>
  perSiteDay(
    db,
    days,
    ['status', 'n'],
    sql`select invoices.status as status, count(*) as n
    from invoices
    where invoices.site_id = b.site_id and invoices.channel = 'mobile_money'
      and invoices.created_at >= b.lo and invoices.created_at < b.hi
    group by invoices.status`,
  );

/** The RADIUS sessions of the site's routers that start in `b`'s range. */
const sessionsOfDay = sql`radius_sessions.device_id in (select devices.id from devices where devices.site_id = b.site_id)
  and radius_sessions.started_at >= b.lo and radius_sessions.started_at < b.hi`;

/** The live octets (`column`) of the open sessions of the grouped router in `b`'s range. */
const openOctets = (column: 'input_octets' | 'output_octets') =>
  sql`(select coalesce(sum(${sql.ref(`o.${column}`)}), 0) from radius_sessions o
    where o.stopped_at is null and o.device_id = radius_sessions.device_id
      and o.started_at >= b.lo and o.started_at < b.hi)`;

/**
 * RADIUS sessions by their start, per site-day, packed per router with their octets: `device_id,
 * n, upload, download`. The count and the closed sessions' final octets come from one index
 * (migration 0046); the open sessions' live octets, from their rows.
 */
export const sessionsPerDay = (db: Db, days: readonly SiteDay[]) =>
  perSiteDay(
    db,
    days,
    ['device_id', 'n', 'upload', 'download'],
    sql`select radius_sessions.device_id as device_id, count(*) as n,
      coalesce(sum(radius_sessions.final_input_octets), 0) + ${openOctets('input_octets')} as upload,
      coalesce(sum(radius_sessions.final_output_octets), 0) + ${openOctets('output_octets')} as download
    from radius_sessions
    where ${sessionsOfDay}
    group by radius_sessions.device_id`,
  );

/**
 * RADIUS sessions by their start, per site-day, packed per local hour: `hour, n`. The offset is
 * the same throughout a site-day (reports.ts cuts a day where it changes), so the local hour is
 * the UTC minute of the day plus the offset, modulo a day.
 */
export const sessionsPerHour = (db: Db, days: readonly SiteDay[]) =>
  perSiteDay(
    db,
    days,
    ['hour', 'n'],
    sql`select (cast(substr(radius_sessions.started_at, 12, 2) as integer) * 60
      + cast(substr(radius_sessions.started_at, 15, 2) as integer) + b.off + 1440) % 1440 / 60 as hour,
      count(*) as n
    from radius_sessions
    where ${sessionsOfDay}
    group by 1`,
  );

/** The guests who spent most (signed payments of their invoices), at most `limit`; sales without a phone are nobody's. */
export const topGuests = (db: Db, ranges: readonly SiteRange[], limit: number) =>
  db
    .selectFrom('payments')
    // As in revenuePerStretch: payments by time first.
    .crossJoin('invoices')
    .whereRef('invoices.id', '=', 'payments.invoice_id')
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

/** The voucher batches of `sites`, newest first, with their plan's name and their own price. */
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
      // The batch's price, not the plan's now: the stock was made (and is sold) at it (0047).
      'voucher_batches.price_tzs as price_tzs',
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
