import { dataOf, ok, type ApiResult } from './api.js';
import { $, show } from './dom.js';
import { t } from './forms.js';
import { adminApi, badge, bytes, chosenSite, element, failure, time, tzs, withSite } from './admin-shell.js';
import { num, revenueFigure } from './revenue-chart.js';

/**
 * /admin: the counts of GET /api/v1/admin/overview, today's sales in the venue's day; the routers
 * as they are now (GET /devices: down ones first); and the last 7 days of the venue's calendar
 * (the revenue report as a chart, the usage report's busiest routers). Each part shows its own
 * failure; all of them respect the page's site filter.
 */

interface Overview {
  devices: number;
  active_sessions: number;
  pending_invoices: number;
  live_grants: number;
  today: {
    since: string;
    timezone: string;
    sales: number;
    revenue_tzs: number;
    by_channel: Record<string, { sales: number; revenue_tzs: number; refunded_tzs: number }>;
  };
}

/** Shows `result`'s failure in the part's error line; true when it succeeded. */
function answered(result: ApiResult, errorId: string): boolean {
  const error = $(errorId);
  show(error, !ok(result));
  if (!ok(result)) error.textContent = failure(result);
  return ok(result);
}

async function load(): Promise<Overview | null> {
  const result = await adminApi('GET', withSite('/overview'));
  $('stats').removeAttribute('aria-busy');
  if (!answered(result, 'stats-error')) return null;
  const o = dataOf(result) as Overview;
  const values: Record<string, string> = {
    devices: String(o.devices),
    active_sessions: String(o.active_sessions),
    pending_invoices: String(o.pending_invoices),
    live_grants: String(o.live_grants),
    sales: String(o.today.sales),
    revenue_tzs: tzs(o.today.revenue_tzs),
  };
  for (const [key, text] of Object.entries(values)) $(`stat-${key}`).textContent = text;
  // Today's takings per channel (DESIGN.md §4.8): they add up to the revenue above, net of the
  // refunds recorded today (docs/decisions/0035), which are named where there are any.
  $('stats-channels').textContent = Object.entries(o.today.by_channel)
    .map(([channel, c]) =>
      t(c.refunded_tzs > 0 ? 'overview.channelRefunded' : 'overview.channel', {
        channel: t(`channel.${channel}`),
        sales: c.sales,
        amount: tzs(c.revenue_tzs),
        refunded: tzs(c.refunded_tzs),
      }),
    )
    .join(' · ');
  $('stats-since').textContent = t('overview.since', {
    time: time(o.today.since, o.today.timezone),
    zone: o.today.timezone,
  });
  return o;
}

interface Device {
  id: string;
  name: string;
  online: boolean;
  last_seen_at: string | null;
  live_sessions: number;
  down_since: string | null;
}

/** Down (offline with guests on it, docs/decisions/0038) before offline before online. */
const stateOf = (d: Device): 'down' | 'offline' | 'online' =>
  d.down_since !== null ? 'down' : d.online ? 'online' : 'offline';
const ORDER = { down: 0, offline: 1, online: 2 } as const;
/** Beyond this many routers, only the ones not online are named (the counts say the rest). */
const STRIP_MAX = 12;

async function routers(): Promise<void> {
  const result = await adminApi('GET', withSite('/devices'));
  $('routers-counts').removeAttribute('aria-busy');
  if (!answered(result, 'routers-error')) return;
  const devices = (dataOf(result) as Device[]).sort(
    (a, b) => ORDER[stateOf(a)] - ORDER[stateOf(b)] || a.name.localeCompare(b.name),
  );
  const counts = { online: 0, offline: 0, down: 0 };
  for (const d of devices) counts[stateOf(d)]++;
  $('routers-counts').textContent =
    devices.length === 0 ? t('overview.noRouters') : t('overview.routerCounts', counts);
  const named = devices.length <= STRIP_MAX ? devices : devices.filter((d) => stateOf(d) !== 'online');
  const items = named.slice(0, STRIP_MAX).map((d) => {
    const state = stateOf(d);
    const link = element('a', d.name);
    link.href = '/admin/devices';
    const since =
      state === 'down'
        ? t('devices.offlineSince', { time: time(d.down_since) })
        : d.last_seen_at === null
          ? t('devices.never')
          : t('devices.lastHeard', { time: time(d.last_seen_at) });
    const li = element('li', '', state);
    li.dataset.router = d.id;
    li.append(
      badge(state, t(`devices.${state}`)),
      link,
      element('span', `${t('overview.routerLive', { n: d.live_sessions })} · ${since}`, 'heard'),
    );
    return li;
  });
  const rest = devices.length - items.length;
  if (rest > 0) items.push(element('li', t('overview.moreRouters', { n: rest }), 'more'));
  $('router-strip').replaceChildren(...items);
}

/** YYYY-MM-DD of `iso` in `zone`, and of `days` days before it. */
function dayIn(iso: string, zone: string, days = 0): string {
  const today = new Intl.DateTimeFormat('en-CA', { timeZone: zone }).format(new Date(iso));
  return new Date(Date.parse(`${today}T00:00:00Z`) - days * 86_400_000).toISOString().slice(0, 10);
}

type Row = Record<string, string | number | null>;
interface ReportAnswer {
  rows: Row[];
  totals: Record<string, number>;
  tables: Record<string, { rows: Row[] } | undefined>;
}

const amount = new Intl.NumberFormat('en-GB');

/** The last 7 days of the venue's calendar (ending today, as the overview's "today"). */
async function week(o: Overview): Promise<void> {
  const params = new URLSearchParams({
    from: dayIn(o.today.since, o.today.timezone, 6),
    to: dayIn(o.today.since, o.today.timezone),
  });
  if (chosenSite !== '') params.set('site', chosenSite);
  const [revenue, usage] = await Promise.all([
    adminApi('GET', `/reports/revenue?${params.toString()}`),
    adminApi('GET', `/reports/usage?${params.toString()}`),
  ]);
  const slot = $('week-chart');
  slot.removeAttribute('aria-busy');
  if (!answered(ok(revenue) ? usage : revenue, 'week-error')) return;
  const r = dataOf(revenue) as ReportAnswer;
  const summary = t('overview.weekSummary', {
    from: params.get('from') ?? '',
    to: params.get('to') ?? '',
    total: amount.format(r.totals.revenue_tzs ?? 0),
    refunds: amount.format(r.totals.refunds_tzs ?? 0),
  });
  slot.replaceChildren(revenueFigure(r.rows, summary, Math.max(280, slot.clientWidth)));
  const busiest = ((dataOf(usage) as ReportAnswer).tables.by_router?.rows ?? [])
    .filter((row) => num(row.sessions) > 0)
    .slice(0, 5);
  $('busiest').replaceChildren(busiestTable(busiest));
}

function busiestTable(rows: readonly Row[]): HTMLElement {
  if (rows.length === 0) return element('p', t('overview.noSessions'), 'hint');
  const table = document.createElement('table');
  table.className = 'rows';
  const head = table.createTHead().insertRow();
  for (const key of ['reports.th.name', 'reports.th.sessions', 'reports.data']) {
    const th = element('th', t(key));
    th.scope = 'col';
    head.append(th);
  }
  const body = table.createTBody();
  for (const row of rows) {
    const line = body.insertRow();
    const cells = [String(row.name ?? ''), amount.format(num(row.sessions)), bytes(num(row.bytes))];
    cells.forEach((text, i) => {
      const td = line.insertCell();
      td.dataset.label = t(['reports.th.name', 'reports.th.sessions', 'reports.data'][i] ?? '');
      td.textContent = text;
    });
  }
  return table;
}

void routers();
void load().then((o) => {
  // Without the overview's "today" there are no 7 days to show: the counters' error says why.
  if (o) return week(o);
  $('week-chart').removeAttribute('aria-busy');
  return undefined;
});
