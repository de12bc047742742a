import type { WifiDeps } from './deps.js';
import { startOfDay } from '../lib/time.js';
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
import { countOpenSessions } from './sessions.store.js';

/** The admin record lists: at most ADMIN_LIST_LIMIT rows, newest first. */

/** One row per guest (normalised phone): purchases, invoices, money spent, first and last seen. */
export async function guests(deps: Pick<WifiDeps, 'db'>) {
  return (await listGuests(deps.db, ADMIN_LIST_LIMIT)).map((g) => ({
    phone: g.phone,
    purchases: Number(g.purchases ?? 0),
    invoices: Number(g.invoices),
    spent_tzs: Number(g.spent_tzs ?? 0),
    first_seen: g.first_seen,
    last_seen: g.last_seen,
  }));
}

/** Invoices as staff see them (never the purchase key's hash). */
export const invoices = (deps: Pick<WifiDeps, 'db'>) => listInvoices(deps.db, ADMIN_LIST_LIMIT);

export const payments = (deps: Pick<WifiDeps, 'db'>) => listPayments(deps.db, ADMIN_LIST_LIMIT);

/** GET /api/v1/admin/overview: the counts a staff dashboard opens with; "today" is the venue's day. */
export async function overview(deps: Pick<WifiDeps, 'db' | 'clock' | 'config'>) {
  const now = deps.clock.now();
  const dayStart = startOfDay(now, deps.config.venueTimezone);
  return {
    devices: await countDevices(deps.db),
    active_sessions: await countOpenSessions(deps.db),
    pending_invoices: await countPendingInvoices(deps.db),
    live_grants: await countLiveGrants(deps.db, now.toISOString()),
    today: {
      since: dayStart.toISOString(),
      timezone: deps.config.venueTimezone,
      ...(await salesSince(deps.db, dayStart.toISOString())),
    },
  };
}
