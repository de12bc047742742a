import type { WifiDeps } from './deps.js';
import { startOfDay } from '../lib/time.js';
import { SALE_CHANNELS } from './audit.js';
import {
  countDevices,
  countLiveGrants,
  countPendingInvoices,
  listGuests,
  listInvoices,
  listPayments,
  salesSince,
} from './records.store.js';
import { ADMIN_LIST_LIMIT } from './limits.js';
import { plainList, type ListFilter } from './list-filter.store.js';
import { countOpenSessions } from './sessions.store.js';
import { EVERY_SITE, sitesOf, timeZoneOf, type SiteView } from './sites.js';

/**
 * The admin record lists: at most ADMIN_LIST_LIMIT rows, newest first, of the sites in view (an
 * invoice belongs to the site its plan had when it was sold).
 */

/** One row per guest (normalised phone): purchases, invoices, money spent, first and last seen. */
export async function guests(
  deps: Pick<WifiDeps, 'db'>,
  view: SiteView = EVERY_SITE,
  filter: ListFilter = plainList(ADMIN_LIST_LIMIT),
) {
  return (await listGuests(deps.db, filter, await sitesOf(deps.db, view))).map((g) => ({
    phone: g.phone,
    purchases: Number(g.purchases ?? 0),
    invoices: Number(g.invoices),
    spent_tzs: Number(g.spent_tzs ?? 0),
    first_seen: g.first_seen,
    last_seen: g.last_seen,
  }));
}

/** Invoices as staff see them (never the purchase key's hash). */
export const invoices = async (
  deps: Pick<WifiDeps, 'db'>,
  view: SiteView = EVERY_SITE,
  filter: ListFilter = plainList(ADMIN_LIST_LIMIT),
) => listInvoices(deps.db, filter, await sitesOf(deps.db, view));

export const payments = async (
  deps: Pick<WifiDeps, 'db'>,
  view: SiteView = EVERY_SITE,
  filter: ListFilter = plainList(ADMIN_LIST_LIMIT),
) => listPayments(deps.db, filter, await sitesOf(deps.db, view));

/**
 * GET /api/v1/admin/overview: the counts a staff dashboard opens with, for the sites in view;
 * "today" is the day of the one site's time zone, or of VENUE_TIMEZONE.
 */
export async function overview(deps: Pick<WifiDeps, 'db' | 'clock' | 'config'>, view: SiteView = EVERY_SITE) {
  const sites = await sitesOf(deps.db, view);
  const now = deps.clock.now();
  const timezone = await timeZoneOf(deps, sites);
  const dayStart = startOfDay(now, timezone);
  return {
    devices: await countDevices(deps.db, sites),
    active_sessions: await countOpenSessions(deps.db, sites),
    pending_invoices: await countPendingInvoices(deps.db, sites),
    live_grants: await countLiveGrants(deps.db, now.toISOString(), sites),
    today: {
      since: dayStart.toISOString(),
      timezone,
      ...salesByChannel(await salesSince(deps.db, dayStart.toISOString(), sites)),
    },
  };
}

/** One channel's (or the day's) figures: refunds are their own count and amount (positive). */
interface Takings {
  sales: number;
  /** Net: what the sales took less what was refunded (the sum of the payments table). */
  revenue_tzs: number;
  refunds: number;
  refunded_tzs: number;
}

const noTakings = (): Takings => ({ sales: 0, revenue_tzs: 0, refunds: 0, refunded_tzs: 0 });

/**
 * Today's sales and revenue in total and per channel (DESIGN.md §4.8): mobile money, vouchers (at
 * redemption), cash and complimentary (always 0 TZS), every channel present even when nothing
 * was sold through it. Revenue is net of the refunds recorded today (docs/decisions/0035): the
 * totals are the sums of the payments table, whatever the channel, and the refunds are shown
 * beside them (how many, and how much went back).
 */
function salesByChannel(rows: readonly { channel: string; kind: string; n: number; total_tzs: number }[]) {
  const by_channel: Record<string, Takings> = Object.fromEntries(SALE_CHANNELS.map((c) => [c, noTakings()]));
  const total = noTakings();
  for (const r of rows) {
    const channel = (by_channel[r.channel] ??= noTakings());
    for (const t of [channel, total]) {
      t.revenue_tzs += r.total_tzs;
      if (r.kind === 'refund') {
        t.refunds += r.n;
        t.refunded_tzs -= r.total_tzs;
      } else {
        t.sales += r.n;
      }
    }
  }
  return { ...total, by_channel };
}
