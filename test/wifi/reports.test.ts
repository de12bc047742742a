import t, { type Test } from 'tap';
import { ManualClock } from '../../src/lib/clock.js';
import { wallClock } from '../../src/lib/time.js';
import {
  addStaffForSites,
  REPORT_GROUPS,
  REPORT_NAMES,
  runReport,
  type Report,
} from '../../src/wifi/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import type { Client } from '../helpers/client.js';
import { insertReportRows, reportRows, type ReportRows } from '../helpers/report-data.js';
import { staffClient } from '../helpers/staff.js';
import { aDevice, aPaidPurchase, aPlan, aSite, wifiRows } from '../helpers/wifi.js';

/**
 * The reports (issue 21; docs/decisions/0036-reports.md) against a direct computation: seeded
 * random rows (payments in every channel with refunds, invoices in every status, sessions on
 * routers of three sites, vouchers in every state) on sites in Dar es Salaam (+03:00), Kolkata
 * (+05:30) and London (DST), many of them on a local midnight or the DST change; every report,
 * every group, every site and all sites must equal what plain JavaScript computes from the same
 * rows, each row's local day read with Intl. REPORTS_SEED=<n> runs another seed.
 */

const SEED = Number(process.env.REPORTS_SEED ?? 21);
const NOW = '2026-07-01T09:00:00.000Z';
const FROM = '2026-01-01';
const TO = '2026-06-30';

interface World {
  app: TestApp;
  rows: ReportRows;
  zones: Map<string, string>;
  devicesSite: Map<string, string>;
  /** Each seller's email (null for the CLI's `cli:<user>`), by sold_by. */
  sellers: Map<string, string | null>;
  sites: { default: string; kolkata: string; london: string };
}

async function world(t: Test): Promise<World> {
  const app = await startTestApp(t, { clock: new ManualClock(NOW) });
  // The rows are the truth the reports are checked against: no scheduled job may change them
  // meanwhile (invoices.expire, on a real-time schedule, would expire the pending invoices).
  await app.app.scheduler.stop();
  const kolkata = await aSite(app.app, { slug: 'kolkata', name: 'Kolkata', time_zone: 'Asia/Kolkata' });
  const london = await aSite(app.app, { slug: 'london', name: 'London', time_zone: 'Europe/London' });
  const router = (n: number, site: string) =>
    aDevice(app.app, {
      name: `AP ${String(n)}`,
      radius_nas_id: `ap-${String(n)}`,
      mac_address: `aa:bb:cc:dd:ee:1${String(n)}`,
      local_network: `10.${String(n)}.0.0/24`,
      uam_server: `http://10.${String(n)}.0.10:8080/portal`,
      radius_client_ip: `10.${String(n)}.0.1`,
      site_id: site,
    });
  const devices = [
    (await router(1, 'default')).device,
    (await router(2, kolkata.id)).device,
    (await router(3, kolkata.id)).device,
    (await router(4, london.id)).device,
  ];
  const plans = [
    await aPlan(app.app, { price_tzs: 1000 }),
    await aPlan(app.app, { name: 'Day', price_tzs: 5000, duration_seconds: 86400 }),
    await aPlan(app.app, { price_tzs: 1500, site_id: kolkata.id }),
    await aPlan(app.app, { price_tzs: 2000, site_id: london.id }),
  ];
  const zones = new Map([
    ['default', app.config.venueTimezone],
    [kolkata.id, kolkata.time_zone ?? ''],
    [london.id, london.time_zone ?? ''],
  ]);
  // Local midnights at the range's ends and around London's DST changes, and the changes themselves.
  const edges = [
    '2025-12-31T21:00:00Z', // Dar es Salaam 2026-01-01 00:00
    '2025-12-31T18:30:00Z', // Kolkata 2026-01-01 00:00
    '2026-01-01T00:00:00Z', // London 2026-01-01 00:00 (GMT)
    '2026-03-29T00:00:00Z', // London 29 March 00:00, an hour before the clocks go forward
    '2026-03-29T01:00:00Z', // London: 01:00 GMT becomes 02:00 BST
    '2026-03-29T23:00:00Z', // London 30 March 00:00 BST
    '2026-06-29T23:00:00Z', // London 30 June 00:00 BST
    '2026-06-30T21:00:00Z', // Dar es Salaam 1 July 00:00 (outside the range)
    '2026-06-30T18:30:00Z', // Kolkata 1 July 00:00
    '2026-06-30T23:00:00Z', // London 1 July 00:00
  ].map((s) => Date.parse(s));
  // Two cashiers (one of one site only) and the CLI sell at the counter.
  const cashier = async (email: string, sites: string[]) =>
    (await addStaffForSites(app.app.deps, { email, role: 'operator', password: 'cashier password 1', sites }))
      .staff.id;
  const sellers = new Map<string, string | null>([
    [await cashier('asha@venue.test', []), 'asha@venue.test'],
    [await cashier('ravi@venue.test', [kolkata.id]), 'ravi@venue.test'],
    ['cli:ops', null],
  ]);
  const rows = reportRows(SEED, {
    sellers: [...sellers.keys()],
    plans,
    devices,
    from: Date.parse('2025-12-20T00:00:00Z'),
    to: Date.parse(NOW),
    edges,
    invoices: 700,
    sessions: 1500,
    // Some still open: usage then reads their live octets, the closed ones' final octets.
    openOneIn: 10,
    batches: 6,
    codesPerBatch: 10,
    now: Date.parse(NOW),
  });
  await insertReportRows(app.app.deps.db, rows);
  return {
    app,
    rows,
    zones,
    devicesSite: new Map(devices.map((d) => [d.id, d.site_id])),
    sellers,
    sites: { default: 'default', kolkata: kolkata.id, london: london.id },
  };
}

// ---- the direct computation: plain JavaScript over the rows -------------------------------------

const localDate = (iso: string, zone: string): string => {
  const w = wallClock(new Date(iso), zone);
  return `${w.year}-${w.month}-${w.day}`;
};

function periodKey(date: string, group: string): string {
  if (group === 'day') return date;
  if (group === 'month') return `${date.slice(0, 8)}01`;
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() - ((d.getUTCDay() + 6) % 7));
  return d.toISOString().slice(0, 10);
}

function periods(from: string, to: string, group: string): string[] {
  const out: string[] = [];
  for (
    let d = new Date(`${from}T00:00:00Z`);
    d.toISOString().slice(0, 10) <= to;
    d.setUTCDate(d.getUTCDate() + 1)
  ) {
    const p = periodKey(d.toISOString().slice(0, 10), group);
    if (!out.includes(p)) out.push(p);
  }
  return out;
}

type Row = Record<string, string | number | null>;

function table(from: string, to: string, group: string, columns: string[]): Map<string, Row> {
  return new Map(
    periods(from, to, group).map((p) => [
      p,
      Object.fromEntries([['period', p], ...columns.map((c) => [c, 0])]) as Row,
    ]),
  );
}

const bump = (row: Row, column: string, by: number) => {
  row[column] = (row[column] as number) + by;
};

interface Ask {
  sites: readonly string[];
  from: string;
  to: string;
  group: string;
}

function expected(w: World, name: string, ask: Ask): { rows: Row[]; tables: Record<string, Row[]> } {
  const inviteSite = new Map(w.rows.invoices.map((i) => [i.id, i]));
  /** The local day of an instant of `site`, when the site is asked for and the day is in range. */
  const dayOf = (site: string, iso: string): string | undefined => {
    if (!ask.sites.includes(site)) return undefined;
    const d = localDate(iso, w.zones.get(site) ?? '');
    return d >= ask.from && d <= ask.to ? d : undefined;
  };
  const payments = w.rows.payments.filter((p) => {
    const inv = inviteSite.get(p.invoice_id);
    return inv !== undefined && dayOf(inv.site_id, p.paid_at) !== undefined;
  });
  const sessions = w.rows.radius_sessions.filter(
    (s) => dayOf(w.devicesSite.get(s.device_id) ?? '', s.started_at) !== undefined,
  );
  switch (name) {
    case 'revenue': {
      const cols = [
        'sales',
        'sales_tzs',
        'refunds',
        'refunds_tzs',
        'revenue_tzs',
        'mobile_money_tzs',
        'voucher_tzs',
        'cash_tzs',
        'complimentary_tzs',
      ];
      const rows = table(ask.from, ask.to, ask.group, cols);
      const by = (key: (p: (typeof payments)[number]) => string | null) => {
        const m = new Map<string | null, Row>();
        for (const p of payments) {
          const k = key(p);
          const r = m.get(k) ?? { key: k, sales: 0, refunds: 0, revenue_tzs: 0 };
          bump(r, p.amount_tzs < 0 ? 'refunds' : 'sales', 1);
          bump(r, 'revenue_tzs', p.amount_tzs);
          m.set(k, r);
        }
        return [...m.values()].sort((a, b) => String(a.key).localeCompare(String(b.key)));
      };
      for (const p of payments) {
        const inv = inviteSite.get(p.invoice_id);
        const row = rows.get(periodKey(dayOf(inv?.site_id ?? '', p.paid_at) ?? '', ask.group));
        if (!row) throw new Error('a payment outside every period');
        const refund = p.amount_tzs < 0;
        bump(row, refund ? 'refunds' : 'sales', 1);
        bump(row, refund ? 'refunds_tzs' : 'sales_tzs', p.amount_tzs);
        bump(row, 'revenue_tzs', p.amount_tzs);
        bump(row, `${p.channel}_tzs`, p.amount_tzs);
      }
      const firstRouter = (grantId: string | undefined): string | null => {
        const own = w.rows.radius_sessions
          .filter((s) => s.grant_id === grantId)
          .sort((a, b) => a.started_at.localeCompare(b.started_at) || a.id.localeCompare(b.id));
        return own[0]?.device_id ?? null;
      };
      const grantOf = new Map(w.rows.grants.map((g) => [g.invoice_id, g.id]));
      const sellers = new Map<string, Row>();
      for (const p of payments) {
        const seller = inviteSite.get(p.invoice_id)?.sold_by ?? null;
        if (seller === null) continue;
        const r = sellers.get(seller) ?? {
          key: seller,
          email: w.sellers.get(seller) ?? null,
          cash_sales: 0,
          cash_tzs: 0,
          complimentary: 0,
          refunds: 0,
          refunds_tzs: 0,
          revenue_tzs: 0,
        };
        sellers.set(seller, r);
        if (p.amount_tzs < 0) {
          bump(r, 'refunds', 1);
          bump(r, 'refunds_tzs', p.amount_tzs);
        } else if (p.channel === 'cash') {
          bump(r, 'cash_sales', 1);
          bump(r, 'cash_tzs', p.amount_tzs);
        } else if (p.channel === 'complimentary') bump(r, 'complimentary', 1);
        bump(r, 'revenue_tzs', p.amount_tzs);
      }
      return {
        rows: [...rows.values()],
        tables: {
          by_seller: [...sellers.values()].sort((a, b) => String(a.key).localeCompare(String(b.key))),
          by_channel: by((p) => p.channel),
          by_plan: by((p) => inviteSite.get(p.invoice_id)?.plan_id ?? null),
          by_router: by((p) => firstRouter(grantOf.get(p.invoice_id))),
        },
      };
    }
    case 'funnel': {
      const rows = table(ask.from, ask.to, ask.group, [
        'started',
        'paid',
        'failed',
        'expired',
        'pending',
        'other',
      ]);
      for (const i of w.rows.invoices) {
        if (i.channel !== 'mobile_money') continue;
        const d = dayOf(i.site_id, i.created_at);
        if (d === undefined) continue;
        const row = rows.get(periodKey(d, ask.group));
        if (!row) throw new Error('an invoice outside every period');
        bump(row, 'started', 1);
        bump(row, i.status, 1);
      }
      return { rows: [...rows.values()], tables: {} };
    }
    case 'usage': {
      const cols = ['sessions', 'download_bytes', 'upload_bytes', 'bytes'];
      const rows = table(ask.from, ask.to, ask.group, cols);
      const routers = new Map<string, Row>();
      for (const s of sessions) {
        const d = dayOf(w.devicesSite.get(s.device_id) ?? '', s.started_at) ?? '';
        const r = routers.get(s.device_id) ?? {
          key: s.device_id,
          sessions: 0,
          download_bytes: 0,
          upload_bytes: 0,
          bytes: 0,
        };
        routers.set(s.device_id, r);
        for (const row of [rows.get(periodKey(d, ask.group)), r]) {
          if (!row) throw new Error('a session outside every period');
          bump(row, 'sessions', 1);
          bump(row, 'download_bytes', s.output_octets);
          bump(row, 'upload_bytes', s.input_octets);
          bump(row, 'bytes', s.output_octets + s.input_octets);
        }
      }
      return {
        rows: [...rows.values()],
        tables: {
          by_router: [...routers.values()].sort((a, b) => String(a.key).localeCompare(String(b.key))),
        },
      };
    }
    case 'busy-hours': {
      const grid = Array.from({ length: 7 * 24 }, (_, i) => ({
        weekday: Math.floor(i / 24) + 1,
        hour: i % 24,
        sessions: 0,
      }));
      for (const s of sessions) {
        const zone = w.zones.get(w.devicesSite.get(s.device_id) ?? '') ?? '';
        const wc = wallClock(new Date(s.started_at), zone);
        const weekday = (new Date(`${wc.year}-${wc.month}-${wc.day}T00:00:00Z`).getUTCDay() + 6) % 7;
        const cell = grid[weekday * 24 + Number(wc.hour)];
        if (cell) cell.sessions += 1;
      }
      return { rows: grid, tables: {} };
    }
    case 'top-guests': {
      const guests = new Map<string, Row>();
      for (const p of payments) {
        const phone = inviteSite.get(p.invoice_id)?.phone ?? '';
        if (phone === '') continue;
        const g = guests.get(phone) ?? { phone, purchases: 0, refunds: 0, spent_tzs: 0 };
        bump(g, p.amount_tzs < 0 ? 'refunds' : 'purchases', 1);
        bump(g, 'spent_tzs', p.amount_tzs);
        guests.set(phone, g);
      }
      const sorted = [...guests.values()].sort(
        (a, b) =>
          (b.spent_tzs as number) - (a.spent_tzs as number) || (String(a.phone) < String(b.phone) ? -1 : 1),
      );
      return { rows: sorted.slice(0, 25).map((g, i) => ({ rank: i + 1, ...g })), tables: {} };
    }
    case 'voucher-stock': {
      const batches = w.rows.voucher_batches
        .filter((b) => ask.sites.includes(b.site_id))
        .sort((a, b) => b.created_at.localeCompare(a.created_at));
      return {
        rows: batches.map((b) => {
          const codes = w.rows.vouchers.filter((v) => v.batch_id === b.id);
          const expired = (v: (typeof codes)[number]) =>
            v.status === 'unused' &&
            v.valid_until !== null &&
            v.valid_until !== undefined &&
            v.valid_until <= NOW;
          return {
            batch_id: b.id,
            count: b.count,
            unused: codes.filter((v) => v.status === 'unused' && !expired(v)).length,
            redeemed: codes.filter((v) => v.status === 'redeemed').length,
            revoked: codes.filter((v) => v.status === 'revoked').length,
            expired: codes.filter(expired).length,
          };
        }),
        tables: {},
      };
    }
  }
  throw new Error(`no expectation for ${name}`);
}

/** A report's rows with only the columns the expectation has (names and prices are not recomputed). */
const pick = (rows: readonly Row[], like: readonly Row[]): Row[] =>
  rows.map((r) => Object.fromEntries(Object.keys(like[0] ?? r).map((k) => [k, r[k] ?? null])));

/** A breakdown keyed like the expectation, sorted by key. */
const keyed = (report: Report, tableName: string, keyColumn: string): Row[] =>
  (report.tables[tableName]?.rows ?? [])
    .map((r) => {
      const { [keyColumn]: key, name: _name, ...rest } = r;
      return { key: key ?? null, ...rest };
    })
    .sort((a, b) => String(a.key).localeCompare(String(b.key)));

const sumOf = (rows: readonly Row[], column: string) => rows.reduce((n, r) => n + Number(r[column] ?? 0), 0);

t.test('every report, group and site equals a direct computation over the same rows', async (t) => {
  const w = await world(t);
  const sold = new Set(w.rows.payments.filter((p) => p.kind === 'sale').map((p) => p.invoice_id));
  const refunds = w.rows.payments.filter((p) => p.kind === 'refund');
  t.ok(
    refunds.some((p) => sold.has(p.invoice_id)) && refunds.some((p) => !sold.has(p.invoice_id)),
    'refunds on their sale’s own invoice and alone are in the data',
  );
  const all = [w.sites.default, w.sites.kolkata, w.sites.london];
  const choices: { site?: string; sites: string[] }[] = [
    { sites: all },
    { site: w.sites.default, sites: [w.sites.default] },
    { site: w.sites.kolkata, sites: [w.sites.kolkata] },
    { site: w.sites.london, sites: [w.sites.london] },
  ];
  for (const name of REPORT_NAMES)
    for (const group of REPORT_GROUPS)
      for (const choice of choices) {
        const report = await runReport(
          w.app.app.deps,
          name,
          { from: FROM, to: TO, group, site: choice.site },
          { scope: null, maskPhones: false },
        );
        const want = expected(w, name, { sites: choice.sites, from: FROM, to: TO, group });
        const label = `${name} by ${group} on ${choice.site ?? 'every site'}`;
        t.same(pick(report.rows, want.rows), want.rows, label);
        for (const [column, total] of Object.entries(report.totals))
          t.equal(total, sumOf(report.rows, column), `${label}: total ${column} is the sum of its rows`);
        if (name === 'revenue') {
          t.same(keyed(report, 'by_plan', 'plan_id'), want.tables.by_plan, `${label}: by plan`);
          t.same(keyed(report, 'by_router', 'device_id'), want.tables.by_router, `${label}: by router`);
          t.same(keyed(report, 'by_seller', 'seller'), want.tables.by_seller, `${label}: by seller`);
          t.ok(
            (want.tables.by_seller ?? []).some((r) => Number(r.refunds) > 0 && Number(r.cash_sales) > 0) ||
              choice.site !== undefined,
            `${label}: sellers with sales and refunds are in the data`,
          );
          t.same(
            keyed(report, 'by_channel', 'channel').filter((r) => Number(r.sales) + Number(r.refunds) > 0),
            want.tables.by_channel,
            `${label}: by channel`,
          );
          t.ok(
            report.rows.some((r) => Number(r.refunds) > 0) || choice.site !== undefined,
            `${label}: refunds are in the data`,
          );
        }
        if (name === 'usage')
          t.same(keyed(report, 'by_router', 'device_id'), want.tables.by_router, `${label}: by router`);
      }
});

t.test('a range cuts each site at its own midnight: the default range is the last 30 days', async (t) => {
  const w = await world(t);
  const report = await runReport(w.app.app.deps, 'revenue', {}, { scope: null, maskPhones: false });
  t.equal(report.to, '2026-07-01', 'today in Dar es Salaam');
  t.equal(report.from, '2026-06-02');
  t.equal(report.rows.length, 30);
  t.same(report.time_zones, Object.fromEntries(w.zones));
  const want = expected(w, 'revenue', {
    sites: [...w.zones.keys()],
    from: report.from,
    to: report.to,
    group: 'day',
  });
  t.same(pick(report.rows, want.rows), want.rows);
});

t.test('the default range takes in today at a site ahead of the venue, as the overview does', async (t) => {
  // 12:00 UTC is 15:00 on 28 November in Dar es Salaam (UTC+3), already 02:00 on 29 November at
  // Kiritimati (UTC+14), whose day started at 10:00 UTC.
  const app = await startTestApp(t, { clock: new ManualClock('2026-11-28T11:00:00Z') });
  const harbour = await aSite(app.app, { time_zone: 'Pacific/Kiritimati' });
  const lobbyPlan = await aPlan(app.app, { price_tzs: 1000 });
  const harbourPlan = await aPlan(app.app, { name: 'Harbour hour', price_tzs: 2500, site_id: harbour.id });
  await aPaidPurchase(app, lobbyPlan); // 14:00 on the 28th in Dar es Salaam
  app.clock.advance('30m');
  await aPaidPurchase(app, harbourPlan); // 01:30 on the 29th at the harbour
  app.clock.advance('30m');
  const owner = await staffClient(app, 'owner');

  const overview = (await owner.get('/api/v1/admin/overview')).body.data;
  t.match(overview.today, { sales: 2, revenue_tzs: 3500 }, 'the overview counts both sales');
  const all = await owner.get('/api/v1/admin/reports/revenue');
  t.equal(all.status, 200);
  const report = all.body.data as Report;
  t.equal(report.to, '2026-11-29', 'the range ends at the latest site’s today');
  t.equal(report.from, '2026-10-31');
  t.same(
    report.rows.slice(-2).map((r) => [r.period, r.sales, r.revenue_tzs]),
    [
      ['2026-11-28', 1, 1000],
      ['2026-11-29', 1, 2500],
    ],
    'each sale on its own site’s day',
  );
  t.match(report.totals, { sales: overview.today.sales, revenue_tzs: overview.today.revenue_tzs });
  t.same(
    report.tables.by_plan?.rows.map((r) => [r.plan_id, r.sales, r.revenue_tzs]),
    [
      [harbourPlan.id, 1, 2500],
      [lobbyPlan.id, 1, 1000],
    ],
  );
  const harbourOnly = (await owner.get('/api/v1/admin/reports/revenue?site=harbour')).body.data as Report;
  t.equal(harbourOnly.to, '2026-11-29', 'one site: its own today, as before');
  t.match(harbourOnly.totals, { sales: 1, revenue_tzs: 2500 });
  const lobbyOnly = (await owner.get('/api/v1/admin/reports/revenue?site=default')).body.data as Report;
  t.equal(lobbyOnly.to, '2026-11-28', 'the venue’s own site: the venue’s today');
});

// ---- over HTTP ----------------------------------------------------------------------------------

const get = (client: Client, path: string) => client.get(path);

async function csvOf(
  w: World,
  client: Client,
  path: string,
): Promise<{ status: number; type: string; text: string; disposition: string }> {
  const res = await fetch(`${w.app.base}${path}`, {
    headers: { ...client.headers, Cookie: client.cookieHeader(), Accept: 'text/csv' },
  });
  return {
    status: res.status,
    type: res.headers.get('content-type') ?? '',
    disposition: res.headers.get('content-disposition') ?? '',
    text: await res.text(),
  };
}

t.test('over HTTP: roles, sites, masking, CSV and refused requests', async (t) => {
  const w = await world(t);
  const owner = await staffClient(w.app, 'owner');
  const viewer = await staffClient(w.app, 'viewer');
  const kolkataAdmin = await staffClient(w.app, 'admin', ['kolkata']);
  const q = `from=${FROM}&to=${TO}`;

  const ownerTop = await get(owner, `/api/v1/admin/reports/top-guests?${q}`);
  t.equal(ownerTop.status, 200);
  const viewerTop = await get(viewer, `/api/v1/admin/reports/top-guests?${q}`);
  t.equal(viewerTop.status, 200);
  const fullPhones = (ownerTop.body.data.rows as Row[]).map((r) => String(r.phone));
  t.ok(fullPhones.length > 0 && fullPhones.every((p) => /^\+2557\d{8}$/.test(p)), 'owners see whole phones');
  t.same(
    (viewerTop.body.data.rows as Row[]).map((r) => r.phone),
    fullPhones.map((p) => `${'*'.repeat(p.length - 3)}${p.slice(-3)}`),
    'viewers see only the last 3 digits',
  );
  t.notOk(
    JSON.stringify(viewerTop.body).includes(fullPhones[0] ?? 'none'),
    'no whole phone anywhere in a viewer’s answer',
  );

  const scoped = await get(kolkataAdmin, `/api/v1/admin/reports/revenue?${q}&group=week`);
  const ownerKolkata = await get(
    owner,
    `/api/v1/admin/reports/revenue?${q}&group=week&site=${w.sites.kolkata}`,
  );
  t.equal(scoped.status, 200);
  t.same(scoped.body.data.rows, ownerKolkata.body.data.rows, 'staff of one site see that site’s figures');
  const bySlug = await get(owner, `/api/v1/admin/reports/revenue?${q}&group=week&site=KOLKATA`);
  t.same(bySlug.body.data, ownerKolkata.body.data, 'a site by its slug, as the CLI and README name it');
  const bySiteId = await get(owner, `/api/v1/admin/reports/revenue?${q}&group=week&site_id=kolkata`);
  t.same(bySiteId.body.data, ownerKolkata.body.data, 'site_id, as the lists name it, is the same filter');
  const invoicesBySlug = await get(owner, '/api/v1/admin/invoices?site_id=kolkata');
  t.same(
    invoicesBySlug.body.data,
    (await get(owner, `/api/v1/admin/invoices?site_id=${w.sites.kolkata}`)).body.data,
  );
  t.ok(invoicesBySlug.body.data.length > 0);
  t.same(Object.keys(scoped.body.data.time_zones), [w.sites.kolkata]);
  const other = await get(kolkataAdmin, `/api/v1/admin/reports/revenue?${q}&site=${w.sites.london}`);
  t.equal(other.status, 422, 'another site reads as unknown');

  const json = await get(owner, `/api/v1/admin/reports/usage?${q}&group=month`);
  const csv = await csvOf(w, owner, `/api/v1/admin/reports/usage?${q}&group=month`);
  t.equal(csv.status, 200);
  t.match(csv.type, /^text\/csv/);
  t.match(csv.disposition, /attachment; filename="usage-2026-01-01-2026-06-30\.csv"/);
  const [header, ...lines] = csv.text.trimEnd().split('\r\n');
  t.same(header?.split(','), json.body.data.columns);
  t.same(
    lines.map((l) => l.split(',')),
    (json.body.data.rows as Row[]).map((r) => (json.body.data.columns as string[]).map((c) => String(r[c]))),
    'the CSV holds the JSON rows',
  );
  const byFormat = await csvOf(w, owner, `/api/v1/admin/reports/usage?${q}&group=month&format=csv`);
  t.equal(byFormat.text, csv.text, '?format=csv is the same download');
  const routers = await csvOf(w, owner, `/api/v1/admin/reports/usage?${q}&format=csv&table=by_router`);
  t.equal(routers.text.split('\r\n')[0], 'device_id,name,sessions,download_bytes,upload_bytes,bytes');
  const sellers = await csvOf(w, owner, `/api/v1/admin/reports/revenue?${q}&format=csv&table=by_seller`);
  const [sellerHead, ...sellerLines] = sellers.text.trimEnd().split('\r\n');
  t.equal(sellerHead, 'seller,name,email,cash_sales,cash_tzs,complimentary,refunds,refunds_tzs,revenue_tzs');
  t.same(
    sellerLines.map((l) => l.split(',')[2]).sort(),
    [...w.sellers.values()].map((e) => e ?? '').sort(),
    'every seller, a cashier by email, the CLI by its name',
  );
  t.same(
    scoped.body.data.tables.by_seller,
    ownerKolkata.body.data.tables.by_seller,
    'staff of one site see only the counter sales of that site',
  );

  const before = await wifiRows(w.app.app.deps.db);
  const refused: [string, number, string][] = [
    [
      '/api/v1/admin/reports/profit',
      404,
      'no such report (reports: revenue, funnel, usage, busy-hours, top-guests, voucher-stock)',
    ],
    ['/api/v1/admin/reports/revenue?from=2026-02-30', 422, 'from and to must be dates (YYYY-MM-DD)'],
    ['/api/v1/admin/reports/revenue?to=yesterday', 422, 'from and to must be dates (YYYY-MM-DD)'],
    ['/api/v1/admin/reports/revenue?from=2026-03-02&to=2026-03-01', 422, 'from must not be after to'],
    [
      '/api/v1/admin/reports/revenue?from=2025-01-01&to=2026-01-02',
      422,
      'from and to may span at most 366 days',
    ],
    ['/api/v1/admin/reports/revenue?group=year', 422, 'group must be day, week or month'],
    ['/api/v1/admin/reports/revenue?format=xml', 422, 'format must be json or csv'],
    ['/api/v1/admin/reports/revenue?format=csv&table=nope', 422, 'table must be one of the report’s tables'],
    ['/api/v1/admin/reports/revenue?site=nope', 422, 'site must be the id or slug of a site you can see'],
    // A misspelt filter is refused, not dropped (the report would cover every site unseen).
    [
      '/api/v1/admin/reports/revenue?sites=kolkata',
      422,
      'unknown parameter sites: reports take from, to, group, site (or site_id), format and table',
    ],
    [
      `/api/v1/admin/reports/revenue?site=kolkata&site_id=${w.sites.london}`,
      422,
      'site and site_id name different sites: give one',
    ],
  ];
  for (const [path, status, message] of refused) {
    const res = await get(owner, path);
    t.equal(res.status, status, path);
    t.same(res.body, { message }, path);
  }
  const year = await get(owner, '/api/v1/admin/reports/revenue?from=2025-07-01&to=2026-06-30');
  t.equal(year.status, 200, '366 days is allowed');
  const anonymous = await fetch(`${w.app.base}/api/v1/admin/reports/revenue`);
  t.equal(anonymous.status, 401);
  t.same(await wifiRows(w.app.app.deps.db), before, 'reports and refused requests change nothing');
});
