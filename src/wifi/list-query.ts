import { toCsv, type CsvValue } from '../lib/csv.js';
import { errorCatalogue } from '../lib/errors.js';
import type { WifiDeps } from './deps.js';
import { ADMIN_LIST_LIMIT } from './limits.js';
import type { ListFilter } from './list-filter.store.js';
import type { ArchivedFilter } from './plans.store.js';
import { dayNumber, localTimeOf } from './reports.js';
import { sitesOf, timeZoneOf, type SiteView } from './sites.js';

/**
 * The query string of the admin lists (issue 21): additions to the spec's lists, which answer as
 * before (at most 200 rows, newest first, a bare array) when none is given.
 *
 * - `q`: a search (phone, username, MAC, invoice number… as fits the list), case-insensitive;
 * - `status`, `kind`, `router`, `plan`: filters, each list naming which it takes and their values;
 * - `seller` (invoices, payments): who sold at the counter, by email, user id or `cli:<user>`;
 * - `from`, `to`: an ISO-8601 date or date-time; a bare date is a day of the list's site's time
 *   zone (`site_id`), else VENUE_TIMEZONE, as in the reports, and a bare `to` takes in that day;
 * - `page`, `per_page`: a page of at most 200 rows; the answer says in `X-Has-More` whether
 *   another page follows (and `X-Page`, `X-Per-Page`);
 * - `format=csv` (or `Accept: text/csv`): the whole filtered list as CSV, however long, streamed
 *   CSV_PAGE.rows rows at a time (`X-Truncated` is always false, kept for callers that read it).
 *
 * A bad value is a 422 with the parameter's name, and nothing is read.
 */

export const PER_PAGE_MAX = 200;
export const PER_PAGE_DEFAULT = 50;
/**
 * How many rows a CSV export reads from the store at a time: one page in memory, and the event
 * loop free between pages. Tests lower it to cross pages with a few rows.
 */
export const CSV_PAGE = { rows: 1000 };
const Q_MAX = 100;

export const listErrors = errorCatalogue({
  pageInvalid: [422, 'page must be a whole number of at least 1'],
  perPageInvalid: [422, 'per_page must be a whole number from 1 to 200'],
  rangeInvalid: [422, 'from and to must be ISO-8601 dates or date-times'],
  qInvalid: [422, 'q must be at most 100 characters'],
  statusInvalid: [422, 'status is not one this list knows'],
  kindInvalid: [422, 'kind is not one this list knows'],
  routerInvalid: [422, 'router must be a router id'],
  planInvalid: [422, 'plan must be a plan id'],
  sellerInvalid: [422, 'seller must be a staff member’s email or id, or cli:<user>, at most 100 characters'],
  formatInvalid: [422, 'format must be csv or json'],
  textInvalid: [422, 'actor, action and target must be at most 100 characters'],
  archivedStatusInvalid: [422, 'status must be archived or all'],
  forceInvalid: [422, 'force must be true or false'],
});

/** What one list takes besides q, from, to and paging. */
export interface ListSpec {
  statuses?: readonly string[];
  kinds?: readonly string[];
  router?: boolean;
  plan?: boolean;
  seller?: boolean;
}

export interface ListQuery {
  filter: ListFilter;
  /** Set when the caller asked for a page (page or per_page given). */
  page: { page: number; perPage: number } | null;
  csv: boolean;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

function whole(raw: string | undefined, min: number, max: number, error: () => Error): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!/^\d{1,9}$/.test(raw) || n < min || n > max) throw error();
  return n;
}

/**
 * An instant, or for a bare date its day's start in `timeZone` (its end, the next day's start, for
 * `to`): the local day the reports put the same rows on, not a UTC day (which starts at 03:00 in
 * Dar es Salaam). A date that does not exist (2026-02-31) is refused rather than rolled into the
 * next month, in a date-time too. `invalid`: the list's error for a value that is neither. The
 * audit list's cursor paging reads its from/to with it too (audit.list.ts).
 */
export function listInstant(
  raw: string | undefined,
  end: boolean,
  timeZone: string,
  invalid: () => Error = listErrors.rangeInvalid,
): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  const day = dayNumber(raw.slice(0, 10));
  if (day === undefined) throw invalid();
  if (DATE_ONLY.test(raw)) return new Date(localTimeOf(timeZone).dayStart(end ? day + 1 : day)).toISOString();
  const ms = Date.parse(raw);
  if (Number.isNaN(ms)) throw invalid();
  return new Date(ms).toISOString();
}

function oneOf(raw: string | undefined, allowed: readonly string[] | undefined, error: () => Error) {
  if (raw === undefined || raw === '') return undefined;
  if (!allowed?.includes(raw)) throw error();
  return raw;
}

function text(raw: string | undefined, taken: boolean | undefined, error: () => Error) {
  const value = raw?.trim();
  if (value === undefined || value === '') return undefined;
  if (!taken || value.length > Q_MAX) throw error();
  return value;
}

function id(raw: string | undefined, taken: boolean | undefined, error: () => Error) {
  if (raw === undefined || raw === '') return undefined;
  if (!taken || !UUID.test(raw)) throw error();
  return raw.toLowerCase();
}

/**
 * The time zone whose days a list's bare `from`/`to` name: its one site's (`site_id`, or a staff
 * scope of one site) when that site has one, else VENUE_TIMEZONE, the zone of the overview's
 * "today". A site_id the staff member cannot see is the lists' 422, as when the rows are read.
 */
export async function listTimeZone(deps: Pick<WifiDeps, 'db' | 'config'>, view: SiteView): Promise<string> {
  return timeZoneOf(deps, await sitesOf(deps.db, view));
}

/** `timeZone`: the zone whose days a bare `from`/`to` names (listTimeZone). */
export function parseListQuery(
  query: Readonly<Record<string, string>>,
  accept: string | undefined,
  spec: ListSpec,
  timeZone: string,
): ListQuery {
  const format = query.format;
  if (format !== undefined && format !== 'csv' && format !== 'json') throw listErrors.formatInvalid();
  const csv = format === 'csv' || (format === undefined && /\btext\/csv\b/i.test(accept ?? ''));
  const pageNo = whole(query.page, 1, 1_000_000, listErrors.pageInvalid);
  const perPage = whole(query.per_page, 1, PER_PAGE_MAX, listErrors.perPageInvalid);
  const q = query.q?.trim();
  if (q !== undefined && q.length > Q_MAX) throw listErrors.qInvalid();
  const from = listInstant(query.from, false, timeZone);
  const to = listInstant(query.to, true, timeZone);
  const page =
    !csv && (pageNo !== undefined || perPage !== undefined)
      ? { page: pageNo ?? 1, perPage: perPage ?? PER_PAGE_DEFAULT }
      : null;
  const filter: ListFilter = {
    q: q === '' ? undefined : q,
    status: oneOf(query.status, spec.statuses, listErrors.statusInvalid),
    kind: oneOf(query.kind, spec.kinds, listErrors.kindInvalid),
    router: id(query.router, spec.router, listErrors.routerInvalid),
    plan: id(query.plan, spec.plan, listErrors.planInvalid),
    seller: text(query.seller, spec.seller, listErrors.sellerInvalid),
    from,
    to,
    // One row more than asked: whether another page follows. A CSV reads CSV_PAGE rows at a time.
    limit: csv ? CSV_PAGE.rows : page ? page.perPage + 1 : ADMIN_LIST_LIMIT,
    offset: page ? (page.page - 1) * page.perPage : 0,
  };
  return { filter, page, csv };
}

/** The rows to send, and whether another page followed; a plain list is as before. */
function pageOf<T>(rows: readonly T[], query: ListQuery): { rows: T[]; more: boolean } {
  const size = query.page ? query.page.perPage : rows.length;
  return { rows: rows.slice(0, size), more: rows.length > size };
}

/** A list's CSV line by line, read from the store a page (CSV_PAGE.rows) at a time. */
async function* csvLines(
  fields: readonly string[],
  filter: ListFilter,
  load: (filter: ListFilter) => Promise<readonly object[]>,
): AsyncGenerator<string> {
  const columns = fields.map((f) => [f, (row: object) => (row as Record<string, CsvValue>)[f]] as const);
  const header = toCsv(columns, []);
  yield header;
  const size = CSV_PAGE.rows;
  for (let offset = 0; ; offset += size) {
    const rows = await load({ ...filter, limit: size, offset });
    if (rows.length > 0) yield toCsv(columns, rows).slice(header.length);
    if (rows.length < size) return;
  }
}

/**
 * The answer of a list: the whole list as a CSV download named after it and the day
 * (`invoices-2026-11-26.csv`), streamed; a page (with X-Page, X-Per-Page, X-Has-More); or the
 * plain list. `load` reads the rows a filter asks for (a CSV calls it once per page).
 */
export async function listAnswer(
  path: string,
  csvFields: readonly string[],
  asked: ListQuery,
  now: Date,
  load: (filter: ListFilter) => Promise<readonly object[]>,
) {
  if (asked.csv) {
    const name = `${path.split('/').at(-1) ?? 'list'}-${now.toISOString().slice(0, 10)}.csv`;
    return {
      stream: csvLines(csvFields, asked.filter, load),
      type: 'text/csv; charset=utf-8',
      headers: {
        'Cache-Control': 'no-store',
        'Content-Disposition': `attachment; filename="${name}"`,
        'X-Truncated': 'false',
      },
    };
  }
  const { rows, more } = pageOf(await load(asked.filter), asked);
  if (!asked.page) return { data: rows };
  const { page, perPage } = asked.page;
  return {
    data: rows,
    headers: { 'X-Page': String(page), 'X-Per-Page': String(perPage), 'X-Has-More': String(more) },
  };
}

/**
 * The plans' and routers' lists (docs/decisions/0037): without `status`, the ones not archived, as
 * before archiving existed; `status=archived` the archived ones, `status=all` both.
 */
export function parseArchivedStatus(raw: string | undefined): ArchivedFilter {
  if (raw === undefined || raw === '') return 'current';
  if (raw === 'archived' || raw === 'all') return raw;
  throw listErrors.archivedStatusInvalid();
}

/** A yes/no query parameter (`force`): absent is false. */
export function parseFlag(raw: string | undefined): boolean {
  if (raw === undefined || raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  throw listErrors.forceInvalid();
}
