import type { Compilable } from 'kysely';
import { AppError, errorCatalogue } from '../lib/errors.js';
import { wallClock } from '../lib/time.js';
import { SALE_CHANNELS } from './audit.js';
import type { WifiDeps } from './deps.js';
import { readRows } from './reports.run.js';
import {
  DAYS_PER_QUERY,
  FIELD,
  funnelPerDay,
  GROUP,
  revenuePerStretch,
  sessionsPerDay,
  sessionsPerHour,
  topGuests,
  voucherBatches,
  voucherStates,
  type SiteDay,
  type PackedRow,
  type SiteRange,
  type Stretch,
} from './reports.store.js';
import { sitesOf, type SiteScope } from './sites.js';
import { selectSites } from './sites.store.js';

/**
 * The owner's reports (issue 21; docs/decisions/0036-reports.md): `GET
 * /api/v1/admin/reports/{name}` and `hotspot-ctl report NAME`. Each report is one table (`columns`,
 * `rows`, `totals`) a chart and a CSV are both drawn from, plus, for some, breakdown `tables`.
 * Days are the site's own: a period starts at midnight in the site's time zone, and with several
 * sites each site's rows are cut by its own zone before they are added up. Every figure is a sum
 * of rows of the payments, invoices, RADIUS sessions or vouchers tables.
 */

export const REPORT_NAMES = [
  'revenue',
  'funnel',
  'usage',
  'busy-hours',
  'top-guests',
  'voucher-stock',
] as const;
export type ReportName = (typeof REPORT_NAMES)[number];
export const REPORT_GROUPS = ['day', 'week', 'month'] as const;
export type ReportGroup = (typeof REPORT_GROUPS)[number];
/** The longest range a report covers, in days (`to` included). */
export const REPORT_MAX_DAYS = 366;
/** The range without `from`: the 30 days ending with `to` (today without it). */
export const REPORT_DEFAULT_DAYS = 30;
/** How many guests top-guests lists. */
export const TOP_GUESTS = 25;

/** A query parameter no report reads (a misspelt filter would otherwise widen the report unseen). */
export const reportParameterUnknown = (name: string): AppError =>
  new AppError(
    'report_parameter_unknown',
    422,
    `unknown parameter ${name}: reports take from, to, group, site (or site_id), format and table`,
  );

export const reportErrors = errorCatalogue({
  reportUnknown: [404, `no such report (reports: ${REPORT_NAMES.join(', ')})`],
  dateInvalid: [422, 'from and to must be dates (YYYY-MM-DD)'],
  rangeReversed: [422, 'from must not be after to'],
  rangeTooLong: [422, `from and to may span at most ${String(REPORT_MAX_DAYS)} days`],
  groupInvalid: [422, 'group must be day, week or month'],
  formatInvalid: [422, 'format must be json or csv'],
  tableInvalid: [422, 'table must be one of the report’s tables'],
  siteTwice: [422, 'site and site_id name different sites: give one'],
});

export interface ReportRequest {
  from?: string | undefined;
  to?: string | undefined;
  group?: string | undefined;
  /** A site id; omitted: every site the staff member may see. */
  site?: string | undefined;
}

/** Who asks: the sites they may see, and whether phones are masked to their last 3 digits (viewers). */
export interface ReportAudience {
  scope: SiteScope;
  maskPhones: boolean;
}

export type Cell = string | number | null;
export type ReportRow = Record<string, Cell>;

export interface ReportTable {
  columns: string[];
  rows: ReportRow[];
}

export interface Report extends ReportTable {
  report: ReportName;
  from: string;
  to: string;
  group: ReportGroup;
  site: string | null;
  /** Each site's time zone, by site id: its days are cut there. */
  time_zones: Record<string, string>;
  /** Sums of the rows' numeric columns. */
  totals: Record<string, number>;
  /** Breakdowns of the same range (revenue by plan, router, channel; usage by router). */
  tables: Record<string, ReportTable>;
  /** When the report was read (ISO-8601). */
  as_of: string;
}

const MINUTE = 60_000;
const QUARTER = 15 * MINUTE;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const BLOCK = 12 * HOUR;

const isReportName = (name: string): name is ReportName => (REPORT_NAMES as readonly string[]).includes(name);

/** A date YYYY-MM-DD as days since 1970-01-01; undefined when it is not a real date. */
export function dayNumber(value: string): number | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return undefined;
  const ms = Date.parse(`${value}T00:00:00Z`);
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== value) return undefined;
  return ms / DAY;
}

const dateOf = (day: number): string => new Date(day * DAY).toISOString().slice(0, 10);

/**
 * The local wall clock of UTC instants in one zone. Intl is slow (a year of quarter hours would
 * take seconds), so offsets are read per 12-hour block: a block whose two ends share an offset has
 * it throughout (no zone changes its offset twice within 12 hours), and in one whose ends differ the
 * change is found by halving down to its quarter hour (every real zone's offset is a whole number
 * of quarter hours and changes only on a quarter hour).
 */
export class LocalTime {
  readonly #zone: string;
  readonly #blocks = new Map<number, { offset: number; change: number; after: number }>();
  readonly #reads = new Map<number, number>();

  constructor(zone: string) {
    this.#zone = zone;
  }

  #read(ms: number): number {
    let offset = this.#reads.get(ms);
    if (offset === undefined) {
      const w = wallClock(new Date(ms), this.#zone);
      offset = Date.UTC(+w.year, +w.month - 1, +w.day, +w.hour, +w.minute, +w.second) - ms;
      this.#reads.set(ms, offset);
    }
    return offset;
  }

  /** The zone's offset from UTC at `ms`, in ms. */
  offset(ms: number): number {
    const start = Math.floor(ms / BLOCK) * BLOCK;
    let block = this.#blocks.get(start);
    if (!block) {
      const offset = this.#read(start);
      const after = this.#read(start + BLOCK);
      let change = start + BLOCK;
      if (after !== offset) {
        // The first quarter hour of the block with the new offset.
        let lo = start;
        while (change - lo > QUARTER) {
          const mid = lo + Math.floor((change - lo) / 2 / QUARTER) * QUARTER;
          if (this.#read(mid) === offset) lo = mid;
          else change = mid;
        }
      }
      block = { offset, change, after };
      this.#blocks.set(start, block);
    }
    return ms < block.change ? block.offset : block.after;
  }

  /** `ms` as the local wall clock read as if it were UTC (getUTC* give the local fields). */
  local(ms: number): number {
    return ms + this.offset(ms);
  }

  /** The local day of `ms`, as days since 1970-01-01. */
  day(ms: number): number {
    return Math.floor(this.local(ms) / DAY);
  }

  /** The first instant of local day `day` (a quarter hour; DST-safe, also where midnight is skipped). */
  dayStart(day: number): number {
    const wall = day * DAY;
    let at = Math.floor((wall - this.offset(wall)) / QUARTER) * QUARTER;
    at = Math.floor((wall - this.offset(at)) / QUARTER) * QUARTER;
    while (this.day(at - QUARTER) >= day) at -= QUARTER;
    while (this.day(at) < day) at += QUARTER;
    return at;
  }

  /** The first quarter hour in (from, to) whose offset differs from `from`'s (quarter hours; at most one change between them), or undefined. */
  changeIn(from: number, to: number): number | undefined {
    const before = this.offset(from);
    let hi = to - QUARTER;
    if (hi <= from || this.offset(hi) === before) return undefined;
    let lo = from;
    while (hi - lo > QUARTER) {
      const mid = lo + Math.floor((hi - lo) / 2 / QUARTER) * QUARTER;
      if (this.offset(mid) === before) lo = mid;
      else hi = mid;
    }
    return hi;
  }
}

/** One LocalTime per zone, kept between reports (a few thousand offsets a zone-year; renewed past a bound). */
const localTimes = new Map<string, LocalTime>();
const LOCAL_TIMES_MAX = 64;

export function localTimeOf(zone: string): LocalTime {
  let time = localTimes.get(zone);
  if (!time) {
    if (localTimes.size >= LOCAL_TIMES_MAX) localTimes.clear();
    time = new LocalTime(zone);
    localTimes.set(zone, time);
  }
  return time;
}

/** The first day of the period (day, ISO week from Monday, month) holding `day`. */
export function periodOf(day: number, group: ReportGroup): number {
  if (group === 'day') return day;
  const date = new Date(day * DAY);
  if (group === 'week') return day - ((date.getUTCDay() + 6) % 7);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1) / DAY;
}

/** The periods from `from` to `to` (days), each named by its first day (the first may start before `from`). */
function periodsOf(from: number, to: number, group: ReportGroup): string[] {
  const out: string[] = [];
  for (let day = from; day <= to; day++) {
    const p = dateOf(periodOf(day, group));
    if (out.at(-1) !== p) out.push(p);
  }
  return out;
}

interface Site {
  id: string;
  zone: string;
  time: LocalTime;
}

interface Scope {
  name: ReportName;
  from: number;
  to: number;
  group: ReportGroup;
  site: string | null;
  sites: Site[];
  ranges: SiteRange[];
  audience: ReportAudience;
  now: Date;
}

/** Checks the request and settles the range, group and sites (nothing is read before it passes). */
async function scopeOf(
  deps: Pick<WifiDeps, 'db' | 'clock' | 'config'>,
  name: string,
  request: ReportRequest,
  audience: ReportAudience,
): Promise<Scope> {
  if (!isReportName(name)) throw reportErrors.reportUnknown();
  const group = request.group === undefined || request.group === '' ? 'day' : request.group;
  if (!(REPORT_GROUPS as readonly string[]).includes(group)) throw reportErrors.groupInvalid();
  const given = (v: string | undefined) => (v === undefined || v === '' ? undefined : v);
  const fromText = given(request.from);
  const toText = given(request.to);
  const fromDay = fromText === undefined ? undefined : dayNumber(fromText);
  const toDay = toText === undefined ? undefined : dayNumber(toText);
  if ((fromText !== undefined && fromDay === undefined) || (toText !== undefined && toDay === undefined))
    throw reportErrors.dateInvalid();
  const ids = await sitesOf(deps.db, { scope: audience.scope, siteId: request.site, param: 'site' });
  const rows = await selectSites(deps.db, ids);
  const sites = rows.map((s) => {
    const zone = s.time_zone ?? deps.config.venueTimezone;
    return { id: s.id, zone, time: localTimeOf(zone) };
  });
  const now = deps.clock.now();
  // Without `to`, the range ends at the latest of the sites' todays: each sale is put on its own
  // site's day, so a site ahead of the venue (Pacific/Kiritimati beside Dar es Salaam) already
  // sells on a date the venue has not reached, and ending at the venue's today would leave those
  // sales out of every row and breakdown while the overview counts them.
  const todays = sites.map((s) => s.time.day(now.getTime()));
  const today =
    todays.length > 0 ? Math.max(...todays) : localTimeOf(deps.config.venueTimezone).day(now.getTime());
  const to = toDay ?? (fromDay !== undefined ? Math.min(fromDay + REPORT_DEFAULT_DAYS - 1, today) : today);
  const from = fromDay ?? to - (REPORT_DEFAULT_DAYS - 1);
  if (from > to) throw reportErrors.rangeReversed();
  if (to - from + 1 > REPORT_MAX_DAYS) throw reportErrors.rangeTooLong();
  const ranges = sites.map((s) => ({
    siteId: s.id,
    from: new Date(s.time.dayStart(from)).toISOString(),
    to: new Date(s.time.dayStart(to + 1)).toISOString(),
  }));
  const site = request.site === undefined || request.site === '' ? null : (ids?.[0] ?? null);
  return { name, from, to, group: group as ReportGroup, site, sites, ranges, audience, now };
}

/** Runs report `name` for `audience`; 404 for an unknown name, 422 for a bad range, group or site. */
export async function runReport(
  deps: Pick<WifiDeps, 'db' | 'clock' | 'config'>,
  name: string,
  request: ReportRequest,
  audience: ReportAudience,
): Promise<Report> {
  const scope = await scopeOf(deps, name, request, audience);
  const body = await BUILDERS[scope.name](deps, scope);
  return {
    report: scope.name,
    from: dateOf(scope.from),
    to: dateOf(scope.to),
    group: scope.group,
    site: scope.site,
    time_zones: Object.fromEntries(scope.sites.map((s) => [s.id, s.zone])),
    columns: body.columns,
    rows: body.rows,
    totals: totalsOf(body),
    tables: body.tables ?? {},
    as_of: scope.now.toISOString(),
  };
}

interface Body extends ReportTable {
  tables?: Record<string, ReportTable>;
}

type Builder = (deps: Pick<WifiDeps, 'db' | 'clock' | 'config'>, scope: Scope) => Promise<Body>;

/** The sums of every numeric column but the ones that name a row (hour, weekday, rank). */
function totalsOf(table: ReportTable): Record<string, number> {
  const totals: Record<string, number> = {};
  for (const column of table.columns) {
    if (NOT_SUMMED.has(column)) continue;
    if (!table.rows.some((r) => typeof r[column] === 'number')) continue;
    totals[column] = table.rows.reduce((n, r) => n + (typeof r[column] === 'number' ? r[column] : 0), 0);
  }
  return totals;
}

const NOT_SUMMED = new Set(['weekday', 'hour', 'rank', 'price_tzs']);

const num = (v: number | string | bigint | null | undefined): number => Number(v ?? 0);

const iso = (ms: number): string => new Date(ms).toISOString();

/**
 * Each site's local days of the range as UTC instants; with `split`, a day whose UTC offset
 * changes (DST) is cut in two there, so that the offset is the same throughout each part.
 */
function siteDays(scope: Scope, split: boolean): SiteDay[] {
  const days: SiteDay[] = [];
  for (const site of scope.sites) {
    for (let day = scope.from; day <= scope.to; day++) {
      const start = site.time.dayStart(day);
      const end = site.time.dayStart(day + 1);
      const change = split ? site.time.changeIn(start, end) : undefined;
      const cuts = change === undefined ? [start, end] : [start, change, end];
      for (let i = 0; i + 1 < cuts.length; i++) {
        const from = cuts[i] ?? start;
        days.push({
          siteId: site.id,
          day,
          from: iso(from),
          to: iso(cuts[i + 1] ?? end),
          offsetMinutes: site.time.offset(from) / MINUTE,
        });
      }
    }
  }
  return days;
}

/**
 * The range cut at every site's local midnights: each stretch lies inside one local day of every
 * site (a payment's site is known only from its invoice, so payments are read once per stretch).
 */
function stretchesOf(scope: Scope): Stretch[] {
  const cuts = new Set<number>();
  for (const site of scope.sites)
    for (let day = scope.from; day <= scope.to + 1; day++) cuts.add(site.time.dayStart(day));
  const sorted = [...cuts].sort((a, b) => a - b);
  return sorted.slice(1).map((to, index) => ({ index, from: iso(sorted[index] ?? to), to: iso(to) }));
}

/**
 * Reads `query` over `items` in statements of at most `size` items each, handing each statement's
 * rows to `fold` as they arrive: a long fold runs in parts between reads, and the event loop turns
 * between them.
 */
async function foldChunked<T, R>(
  deps: Pick<WifiDeps, 'db'>,
  items: readonly T[],
  size: number,
  query: (chunk: readonly T[]) => Compilable<R>,
  fold: (rows: readonly R[]) => void,
): Promise<void> {
  for (let i = 0; i < items.length; i += size) fold(await readRows(deps.db, query(items.slice(i, i + size))));
}

/** The rows of `query` over `items` in statements of at most DAYS_PER_QUERY items each. */
async function readChunked<T, R>(
  deps: Pick<WifiDeps, 'db'>,
  items: readonly T[],
  query: (chunk: readonly T[]) => Compilable<R>,
): Promise<R[]> {
  const rows: R[] = [];
  await foldChunked(deps, items, DAYS_PER_QUERY, query, (chunk) => rows.push(...chunk));
  return rows;
}

/** A packed row's groups, each as its fields (text). */
const unpack = (packed: string | null): string[][] =>
  packed === null ? [] : packed.split(GROUP).map((g) => g.split(FIELD));

/** Rows per period with `columns` zeroed, and the row of a local day. */
function periodTable(scope: Scope, columns: readonly string[]) {
  const rows = new Map<string, ReportRow>();
  for (const p of periodsOf(scope.from, scope.to, scope.group))
    rows.set(p, Object.fromEntries([['period', p], ...columns.map((c) => [c, 0])]) as ReportRow);
  const byDay = new Map<number, ReportRow | undefined>();
  const rowOf = (day: number): ReportRow | undefined => {
    if (day < scope.from || day > scope.to) return undefined;
    let row = byDay.get(day);
    if (!row) byDay.set(day, (row = rows.get(dateOf(periodOf(day, scope.group)))));
    return row;
  };
  return { rows: [...rows.values()], rowOf, columns: ['period', ...columns] };
}

const add = (row: ReportRow, column: string, value: number): void => {
  row[column] = (row[column] as number) + value;
};

const REVENUE_COLUMNS = [
  'sales',
  'sales_tzs',
  'refunds',
  'refunds_tzs',
  'revenue_tzs',
  ...SALE_CHANNELS.map((c) => `${c}_tzs`),
];
const BREAKDOWN_COLUMNS = ['sales', 'refunds', 'revenue_tzs'];

interface Signed {
  key: string | null;
  refund: number | string;
  n: number | string;
  total: number | string;
}

/** Sales and refunds per key, from rows `{key, refund, n, total}`, named by `nameOf`. */
function breakdown(
  keyColumn: string,
  rows: readonly Signed[],
  nameOf: (key: string | null) => string,
): ReportTable {
  const byKey = new Map<string | null, ReportRow>();
  for (const r of rows) {
    let row = byKey.get(r.key);
    if (!row) {
      row = { [keyColumn]: r.key, name: nameOf(r.key), sales: 0, refunds: 0, revenue_tzs: 0 };
      byKey.set(r.key, row);
    }
    add(row, num(r.refund) === 1 ? 'refunds' : 'sales', num(r.n));
    add(row, 'revenue_tzs', num(r.total));
  }
  const sorted = [...byKey.values()].sort(
    (a, b) =>
      (b.revenue_tzs as number) - (a.revenue_tzs as number) || String(a.name).localeCompare(String(b.name)),
  );
  return { columns: [keyColumn, 'name', ...BREAKDOWN_COLUMNS], rows: sorted };
}

/** Adds sales or refunds to `key`'s (empty: none, null) in `into`. */
function tally(into: Map<string, Signed>, key: string, refund: boolean, n: number, total: number): void {
  const id = refund ? `${key}${FIELD}1` : key;
  const t = into.get(id);
  if (t) {
    t.n = num(t.n) + n;
    t.total = num(t.total) + total;
  } else into.set(id, { key: key === '' ? null : key, refund: refund ? 1 : 0, n, total });
}

/** By key, as a grouped query would list them (nulls first): the order ties keep in breakdowns. */
const byKey = <T extends { key: string | null }>(rows: T[]): T[] =>
  rows.sort((a, b) =>
    a.key === b.key ? 0 : a.key === null ? -1 : b.key === null ? 1 : a.key < b.key ? -1 : 1,
  );

async function namesOf(deps: Pick<WifiDeps, 'db'>, table: 'plans' | 'devices'): Promise<Map<string, string>> {
  const rows = await deps.db.selectFrom(table).select(['id', 'name']).execute();
  return new Map(rows.map((r) => [r.id, r.name]));
}

/**
 * Stretches per revenue statement (64 days with one time zone, about a month with two): folding one
 * statement's rows stays short.
 */
const STRETCHES_PER_FOLD = 64;

const revenue: Builder = async (deps, scope) => {
  const table = periodTable(scope, REVENUE_COLUMNS);
  const channels = new Map<string, ReportRow>();
  const plans = new Map<string, Signed>();
  const routers = new Map<string, Signed>();
  const sellers = new Map<string, ReportRow>();
  const zones = new Map(scope.sites.map((s) => [s.id, s.time]));
  const stretches = stretchesOf(scope);
  const sites = scope.sites.map((s) => s.id);
  // About 100k groups a year at a busy venue (one per sale, nearly: each has its router): folded
  // STRETCHES_PER_FOLD at a time, between reads (docs/decisions/0045-first-router.md).
  const fold = (read: readonly ({ stretch: number } & PackedRow)[]) => {
    for (const r of read) {
      const stretch = stretches[num(r.stretch)];
      if (!stretch) continue;
      const start = Date.parse(stretch.from);
      /** Each site's period row of this stretch (a stretch lies inside one local day of every site). */
      const rowOfSite = new Map<string, ReportRow | undefined>();
      for (const [
        siteId = '',
        planId = '',
        deviceId = '',
        channel = '',
        seller = '',
        refundText,
        nText,
        totalText,
      ] of unpack(r.packed)) {
        let row = rowOfSite.get(siteId);
        if (row === undefined && !rowOfSite.has(siteId)) {
          const time = zones.get(siteId);
          rowOfSite.set(siteId, (row = time && table.rowOf(time.day(start))));
        }
        if (!row) continue;
        const refund = refundText === '1';
        const n = num(nText);
        const total = num(totalText);
        add(row, refund ? 'refunds' : 'sales', n);
        add(row, refund ? 'refunds_tzs' : 'sales_tzs', total);
        add(row, 'revenue_tzs', total);
        if (`${channel}_tzs` in row) add(row, `${channel}_tzs`, total);
        let c = channels.get(channel);
        if (!c) channels.set(channel, (c = { channel, name: channel, sales: 0, refunds: 0, revenue_tzs: 0 }));
        add(c, refund ? 'refunds' : 'sales', n);
        add(c, 'revenue_tzs', total);
        tally(plans, planId, refund, n, total);
        tally(routers, deviceId, refund, n, total);
        if (seller !== '') tallySeller(sellers, seller, channel, refund, n, total);
      }
    }
  };
  await foldChunked(
    deps,
    stretches,
    STRETCHES_PER_FOLD,
    (chunk) => revenuePerStretch(deps.db, chunk, sites),
    fold,
  );
  const planNames = await namesOf(deps, 'plans');
  const devices = await namesOf(deps, 'devices');
  return {
    columns: table.columns,
    rows: table.rows,
    tables: {
      by_channel: {
        columns: ['channel', 'name', ...BREAKDOWN_COLUMNS],
        rows: SALE_CHANNELS.map(
          (ch) => channels.get(ch) ?? { channel: ch, name: ch, sales: 0, refunds: 0, revenue_tzs: 0 },
        ).concat(
          [...channels.values()].filter(
            (c) => !(SALE_CHANNELS as readonly Cell[]).includes(c.channel ?? null),
          ),
        ),
      },
      by_plan: breakdown('plan_id', byKey([...plans.values()]), (k) =>
        k === null ? '(none)' : (planNames.get(k) ?? k),
      ),
      by_router: breakdown('device_id', byKey([...routers.values()]), (k) =>
        k === null ? '(never online)' : (devices.get(k) ?? k),
      ),
      by_seller: await bySeller(deps, sellers),
    },
  };
};

/**
 * by_seller (whether a cashier's cash adds up): per staff member who sold at the counter (the
 * invoice's `sold_by`), their cash sales and the cash taken, the complimentary grants they gave,
 * the refunds of their sales (netted: `revenue_tzs` is what their drawer should hold) and, should a
 * sale of another channel carry a seller, its money in `revenue_tzs`. Vouchers and mobile money
 * carry no seller: a code is redeemed by the guest, not sold at the counter by anyone the box knows.
 */
const SELLER_COLUMNS = ['cash_sales', 'cash_tzs', 'complimentary', 'refunds', 'refunds_tzs', 'revenue_tzs'];

function tallySeller(
  into: Map<string, ReportRow>,
  seller: string,
  channel: string,
  refund: boolean,
  n: number,
  total: number,
): void {
  let row = into.get(seller);
  if (!row) {
    row = { seller, name: seller, email: null };
    for (const c of SELLER_COLUMNS) row[c] = 0;
    into.set(seller, row);
  }
  if (refund) {
    add(row, 'refunds', n);
    add(row, 'refunds_tzs', total);
  } else if (channel === 'cash') {
    add(row, 'cash_sales', n);
    add(row, 'cash_tzs', total);
  } else if (channel === 'complimentary') add(row, 'complimentary', n);
  add(row, 'revenue_tzs', total);
}

/** The sellers' rows named (staff by their name and email; the CLI's `cli:<user>` as it is), most cash first. */
async function bySeller(deps: Pick<WifiDeps, 'db'>, sellers: Map<string, ReportRow>): Promise<ReportTable> {
  const ids = [...sellers.keys()];
  const users =
    ids.length === 0
      ? []
      : await deps.db
          .selectFrom('users')
          .where('id', 'in', ids)
          .select(['id', 'email', 'display_name'])
          .execute();
  for (const u of users) {
    const row = sellers.get(u.id);
    if (!row) continue;
    row.name = u.display_name === '' ? (u.email ?? u.id) : u.display_name;
    row.email = u.email;
  }
  const rows = [...sellers.values()].sort(
    (a, b) =>
      (b.revenue_tzs as number) - (a.revenue_tzs as number) ||
      String(a.seller).localeCompare(String(b.seller)),
  );
  return { columns: ['seller', 'name', 'email', ...SELLER_COLUMNS], rows };
}

const FUNNEL_STATUSES = ['paid', 'failed', 'expired', 'pending'] as const;

const funnel: Builder = async (deps, scope) => {
  const table = periodTable(scope, ['started', ...FUNNEL_STATUSES, 'other']);
  const days = siteDays(scope, false);
  for (const r of await readChunked(deps, days, (chunk) => funnelPerDay(deps.db, chunk))) {
    const row = table.rowOf(num(r.day));
    if (!row) continue;
    for (const [status = '', n] of unpack(r.packed)) {
      add(row, 'started', num(n));
      add(row, (FUNNEL_STATUSES as readonly string[]).includes(status) ? status : 'other', num(n));
    }
  }
  return { columns: table.columns, rows: table.rows };
};

const USAGE_COLUMNS = ['sessions', 'download_bytes', 'upload_bytes', 'bytes'];

const usage: Builder = async (deps, scope) => {
  const table = periodTable(scope, USAGE_COLUMNS);
  const routers = new Map<string, ReportRow>();
  const devices = await namesOf(deps, 'devices');
  const days = siteDays(scope, false);
  for (const r of await readChunked(deps, days, (chunk) => sessionsPerDay(deps.db, chunk))) {
    const row = table.rowOf(num(r.day));
    if (!row) continue;
    for (const [deviceId = '', n, upload, download] of unpack(r.packed)) {
      let router = routers.get(deviceId);
      if (!router) {
        router = { device_id: deviceId, name: devices.get(deviceId) ?? deviceId };
        for (const c of USAGE_COLUMNS) router[c] = 0;
        routers.set(deviceId, router);
      }
      for (const into of [row, router]) {
        add(into, 'sessions', num(n));
        add(into, 'download_bytes', num(download));
        add(into, 'upload_bytes', num(upload));
        add(into, 'bytes', num(download) + num(upload));
      }
    }
  }
  const byRouter = [...routers.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, row]) => row)
    .sort(
      (a, b) => (b.bytes as number) - (a.bytes as number) || String(a.name).localeCompare(String(b.name)),
    );
  return {
    columns: table.columns,
    rows: table.rows,
    tables: { by_router: { columns: ['device_id', 'name', ...USAGE_COLUMNS], rows: byRouter } },
  };
};

export const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'] as const;

/** Sessions started per local weekday (1 = Monday) and hour: 168 rows. */
const busyHours: Builder = async (deps, scope) => {
  const rows: ReportRow[] = [];
  for (let w = 0; w < 7; w++)
    for (let h = 0; h < 24; h++) rows.push({ weekday: w + 1, day: WEEKDAYS[w] ?? '', hour: h, sessions: 0 });
  const days = siteDays(scope, true);
  for (const r of await readChunked(deps, days, (chunk) => sessionsPerHour(deps.db, chunk))) {
    const weekday = (num(r.day) + 3) % 7; // 1970-01-01, day 0, was a Thursday
    for (const [hour, n] of unpack(r.packed)) {
      const row = rows[weekday * 24 + num(hour)];
      if (row) add(row, 'sessions', num(n));
    }
  }
  return { columns: ['weekday', 'day', 'hour', 'sessions'], rows };
};

/** A phone with everything but its last 3 digits hidden (`**********678`), for viewers. */
export const maskPhone = (phone: string): string =>
  phone.length <= 3 ? phone : '*'.repeat(phone.length - 3) + phone.slice(-3);

const topGuestsReport: Builder = async (deps, scope) => {
  const rows = await readRows(deps.db, topGuests(deps.db, scope.ranges, TOP_GUESTS));
  return {
    columns: ['rank', 'phone', 'purchases', 'refunds', 'spent_tzs'],
    rows: rows.map((r, i) => ({
      rank: i + 1,
      phone: scope.audience.maskPhones ? maskPhone(r.phone) : r.phone,
      purchases: num(r.purchases),
      refunds: num(r.refunds),
      spent_tzs: num(r.spent_tzs),
    })),
  };
};

const VOUCHER_STATES = ['unused', 'redeemed', 'revoked', 'expired'] as const;

/** The codes of every batch of the sites as they stand now (the range does not apply: stock is now). */
const voucherStock: Builder = async (deps, scope) => {
  const sites = scope.sites.map((s) => s.id);
  const counts = new Map<string, Record<string, number>>();
  for (const r of await readRows(deps.db, voucherStates(deps.db, sites, scope.now.toISOString()))) {
    const c = counts.get(r.batch_id) ?? {};
    c[r.state] = (c[r.state] ?? 0) + num(r.n);
    counts.set(r.batch_id, c);
  }
  const batches = await readRows(deps.db, voucherBatches(deps.db, sites));
  return {
    columns: [
      'batch_id',
      'created_at',
      'plan',
      'prefix',
      'count',
      ...VOUCHER_STATES,
      'price_tzs',
      'face_value_tzs',
      'unused_value_tzs',
    ],
    rows: batches.map((b) => {
      const c = counts.get(b.id) ?? {};
      const price = num(b.price_tzs);
      const row: ReportRow = {
        batch_id: b.id,
        created_at: b.created_at,
        plan: b.plan_name ?? '',
        prefix: b.prefix,
        count: num(b.count),
      };
      for (const s of VOUCHER_STATES) row[s] = c[s] ?? 0;
      row.price_tzs = price;
      row.face_value_tzs = price * num(b.count);
      row.unused_value_tzs = price * (c.unused ?? 0);
      return row;
    }),
  };
};

const BUILDERS: Record<ReportName, Builder> = {
  revenue,
  funnel,
  usage,
  'busy-hours': busyHours,
  'top-guests': topGuestsReport,
  'voucher-stock': voucherStock,
};

/** A cell fit for a spreadsheet: quoted when needed, and text a spreadsheet would run as a formula made inert. */
function csvCell(value: Cell): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  const text = /^[=@\t\r]|^[+-](?!\d+$)/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The report's main table (or one of its `tables`) as CSV: a header line, then one line per row. */
export function reportCsv(report: Report, tableName?: string): string {
  const table: ReportTable | undefined =
    tableName === undefined || tableName === '' ? report : report.tables[tableName];
  if (!table) throw reportErrors.tableInvalid();
  return [table.columns, ...table.rows.map((r) => table.columns.map((c) => r[c] ?? null))]
    .map((line) => line.map(csvCell).join(','))
    .join('\r\n')
    .concat('\r\n');
}

/** The file name of a report's CSV download. */
export const reportFileName = (report: Report, tableName?: string): string =>
  `${report.report}${tableName ? `-${tableName.replace(/_/g, '-')}` : ''}-${report.from}-${report.to}.csv`;
