import t from 'tap';
import { ManualClock } from '../../src/lib/clock.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import type { Client } from '../helpers/client.js';
import { CSV_PAGE } from '../../src/wifi/list-query.js';
import { staffClient } from '../helpers/staff.js';
import {
  aDevice,
  aLiveSession,
  aPaidPurchase,
  aPlan,
  aPurchaseKey,
  aSite,
  postPurchase,
  wifiRows,
} from '../helpers/wifi.js';

/**
 * The admin lists' query string (issue 21): search, filters, date range, pages and CSV, on
 * sessions, guests, invoices, payments and messages. Without it the spec's plain list is unchanged.
 */

/** Three paid purchases (two phones) a minute apart, one pending invoice, a session per sale. */
async function records(app: TestApp) {
  const hour = await aPlan(app.app, { name: 'Hour' });
  const day = await aPlan(app.app, { name: 'Day', price_tzs: 3000 });
  const { device } = await aDevice(app.app);
  const paid = [];
  for (const [i, [plan, phone]] of (
    [
      [hour, '0712345678'],
      [day, '0712345678'],
      [hour, '0755000111'],
    ] as const
  ).entries()) {
    app.clock.advance('1m');
    const p = await aPaidPurchase(app, plan, { phone });
    paid.push(p);
    await aLiveSession(app.app, {
      deviceId: device.id,
      username: `guest-${String(i)}`,
      acctSessionId: `acct-${String(i)}`,
      mac: `11:22:33:44:55:7${String(i)}`,
    });
  }
  app.clock.advance('1m');
  await postPurchase(app.base, { plan_id: hour.id, phone: '0788999000' }, aPurchaseKey());
  return { hour, day, device, paid };
}

const csvOf = async (client: Client, path: string, headers: Record<string, string> = {}) => {
  const res = await fetch(`${client.base}${path}`, {
    headers: { ...client.headers, Cookie: client.cookieHeader(), ...headers },
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
};

t.test('search folds letters beyond ASCII on both stores (SQLite by itself folds ASCII only)', async (t) => {
  const app = await startTestApp(t);
  const viewer = await staffClient(app, 'viewer');
  const cafe = await aPaidPurchase(app, await aPlan(app.app, { name: 'CAFÉ Ünïcode' }), {
    phone: '0766000222',
  });
  await aPaidPurchase(app, await aPlan(app.app, { name: 'Cafe' }), { phone: '0766000333' });
  for (const q of ['café', 'CAFÉ', 'ÜNÏ', 'é ü'])
    t.same(
      (await viewer.get(`/api/v1/admin/invoices?q=${encodeURIComponent(q)}`)).body.data.map(
        (i: { number: string }) => i.number,
      ),
      [cafe.invoiceNumber],
      `q=${q}`,
    );
  t.equal((await viewer.get('/api/v1/admin/invoices?q=CAF')).body.data.length, 2, 'ASCII as before');
});

t.test('invoices: search, status, plan, date range and pages; the plain list is as before', async (t) => {
  const app = await startTestApp(t);
  const { hour, paid } = await records(app);
  const viewer = await staffClient(app, 'viewer');
  const numbers = (res: { body: { data: { number: string }[] } }) => res.body.data.map((i) => i.number);

  const plain = await viewer.get('/api/v1/admin/invoices');
  t.equal(plain.status, 200);
  t.equal(plain.body.data.length, 4, 'every invoice, newest first');
  t.same(Object.keys(plain.body), ['data'], 'the same shape as before');
  t.equal(plain.headers.get('x-has-more'), null, 'no paging headers without paging');

  t.same(numbers(await viewer.get('/api/v1/admin/invoices?status=pending')).length, 1);
  t.same(
    numbers(await viewer.get('/api/v1/admin/invoices?q=0712%20345%20678')),
    [paid[1]?.invoiceNumber, paid[0]?.invoiceNumber],
    'a phone as typed on a phone finds the E.164 number',
  );
  t.same(
    numbers(await viewer.get(`/api/v1/admin/invoices?q=${paid[2]?.invoiceNumber.toLowerCase() ?? ''}`)),
    [paid[2]?.invoiceNumber],
  );
  t.same(
    numbers(await viewer.get('/api/v1/admin/invoices?q=50%25')),
    [],
    'a % is a character, not a wildcard',
  );
  t.same(numbers(await viewer.get(`/api/v1/admin/invoices?plan=${hour.id}&status=paid`)), [
    paid[2]?.invoiceNumber,
    paid[0]?.invoiceNumber,
  ]);
  const first = plain.body.data.at(-1) as { created_at: string };
  const from = new Date(Date.parse(first.created_at) + 1).toISOString();
  t.equal((await viewer.get(`/api/v1/admin/invoices?from=${from}`)).body.data.length, 3, 'from is inclusive');
  t.equal(
    (await viewer.get(`/api/v1/admin/invoices?to=${first.created_at}`)).body.data.length,
    0,
    'to is exclusive',
  );
  const day = first.created_at.slice(0, 10);
  t.equal(
    (await viewer.get(`/api/v1/admin/invoices?to=${day}`)).body.data.length,
    4,
    'a bare date takes in its day',
  );

  const page1 = await viewer.get('/api/v1/admin/invoices?per_page=3');
  t.same(
    [page1.body.data.length, page1.headers.get('x-has-more'), page1.headers.get('x-page')],
    [3, 'true', '1'],
  );
  const page2 = await viewer.get('/api/v1/admin/invoices?per_page=3&page=2');
  t.same([page2.body.data.length, page2.headers.get('x-has-more')], [1, 'false']);
  t.same(
    [...numbers(page1), ...numbers(page2)],
    numbers(plain),
    'the pages together are the list, each row once',
  );
});

t.test('bad list parameters are 422 with the parameter named, and change nothing', async (t) => {
  const app = await startTestApp(t);
  await records(app);
  const viewer = await staffClient(app, 'viewer');
  const before = await wifiRows(app.app.deps.db);
  const cases: [string, string][] = [
    ['/api/v1/admin/invoices?page=0', 'page must be a whole number of at least 1'],
    ['/api/v1/admin/invoices?page=1.5', 'page must be a whole number of at least 1'],
    ['/api/v1/admin/sessions?per_page=201', 'per_page must be a whole number from 1 to 200'],
    ['/api/v1/admin/payments?from=yesterday', 'from and to must be ISO-8601 dates or date-times'],
    ['/api/v1/admin/guests?to=2026-13-45', 'from and to must be ISO-8601 dates or date-times'],
    // Dates that do not exist, as the reports refuse them, rather than rolled into March.
    ['/api/v1/admin/invoices?from=2026-02-31', 'from and to must be ISO-8601 dates or date-times'],
    ['/api/v1/admin/payments?to=2026-02-29', 'from and to must be ISO-8601 dates or date-times'],
    ['/api/v1/admin/invoices?from=2026-02-31T10:00:00Z', 'from and to must be ISO-8601 dates or date-times'],
    ['/api/v1/admin/invoices?status=lost', 'status is not one this list knows'],
    ['/api/v1/admin/guests?status=paid', 'status is not one this list knows'],
    ['/api/v1/admin/payments?kind=bitcoin', 'kind is not one this list knows'],
    ['/api/v1/admin/sessions?router=lobby', 'router must be a router id'],
    ['/api/v1/admin/invoices?plan=1', 'plan must be a plan id'],
    [
      `/api/v1/admin/payments?seller=${'x'.repeat(101)}`,
      'seller must be a staff member’s email or id, or cli:<user>, at most 100 characters',
    ],
    [
      '/api/v1/admin/sessions?seller=cli:ops',
      'seller must be a staff member’s email or id, or cli:<user>, at most 100 characters',
    ],
    ['/api/v1/admin/messages?format=xlsx', 'format must be csv or json'],
    [`/api/v1/admin/messages?q=${'x'.repeat(101)}`, 'q must be at most 100 characters'],
  ];
  for (const [path, message] of cases) {
    const res = await viewer.get(path);
    t.same([res.status, res.body], [422, { message }], path);
  }
  t.same(await wifiRows(app.app.deps.db), before);
});

t.test(
  'sessions: search by MAC or username, live or ended, by router; guests and payments filter too',
  async (t) => {
    const app = await startTestApp(t);
    const { device, paid } = await records(app);
    const viewer = await staffClient(app, 'viewer');
    const users = (res: { body: { data: { username: string }[] } }) => res.body.data.map((s) => s.username);
    t.same(users(await viewer.get('/api/v1/admin/sessions?q=11:22:33:44:55:71')), ['guest-1']);
    t.same(users(await viewer.get('/api/v1/admin/sessions?q=GUEST-2')), ['guest-2'], 'case-insensitive');
    t.same(users(await viewer.get(`/api/v1/admin/sessions?router=${device.id}&status=active`)).length, 3);
    t.same(users(await viewer.get('/api/v1/admin/sessions?status=ended')), []);
    t.same(users(await viewer.get('/api/v1/admin/sessions?router=00000000-0000-4000-8000-000000000000')), []);

    const guests = await viewer.get('/api/v1/admin/guests?q=0755');
    t.match(guests.body.data, [{ phone: '**********111', purchases: 1 }], 'a viewer sees the last 3 digits');
    t.equal(guests.body.data.length, 1);
    const payments = await viewer.get('/api/v1/admin/payments?kind=mobile_money&per_page=2');
    t.same([payments.body.data.length, payments.headers.get('x-has-more')], [2, 'true']);
    t.same(
      (await viewer.get(`/api/v1/admin/payments?q=${paid[0]?.invoiceNumber ?? ''}`)).body.data.map(
        (p: { invoice_number: string }) => p.invoice_number,
      ),
      [paid[0]?.invoiceNumber],
    );
    t.same((await viewer.get('/api/v1/admin/payments?kind=cash')).body.data, []);
  },
);

t.test('a bare date is a day of the venue’s time zone: a sale at 01:00 local is in that day', async (t) => {
  // Dar es Salaam (VENUE_TIMEZONE) is UTC+3: its 29 November runs from 21:00 UTC on the 28th.
  const app = await startTestApp(t, { clock: new ManualClock('2026-11-28T20:30:00Z') });
  const plan = await aPlan(app.app, { price_tzs: 1000 });
  await aPaidPurchase(app, plan); // 23:30 on the 28th
  app.clock.advance('90m');
  const early = await aPaidPurchase(app, plan); // 01:00 on the 29th
  app.clock.advance(22.5 * 3_600_000);
  const late = await aPaidPurchase(app, plan); // 23:30 on the 29th
  app.clock.advance('1h');
  await aPaidPurchase(app, plan); // 00:30 on the 30th
  app.clock.advance('12h');
  const viewer = await staffClient(app, 'viewer');
  const day = 'from=2026-11-29&to=2026-11-29';

  const invoices = await viewer.get(`/api/v1/admin/invoices?${day}`);
  t.equal(invoices.status, 200);
  t.same(
    (invoices.body.data as { number: string }[]).map((i) => i.number),
    [late.invoiceNumber, early.invoiceNumber],
    'the local day from its midnight to the next',
  );
  const payments = await viewer.get(`/api/v1/admin/payments?${day}`);
  t.same(
    (payments.body.data as { invoice_number: string }[]).map((p) => p.invoice_number),
    [late.invoiceNumber, early.invoiceNumber],
  );
  const csv = await csvOf(viewer, `/api/v1/admin/payments?${day}&format=csv`);
  const lines = csv.text.trimEnd().split('\r\n').slice(1);
  t.same(
    [
      lines.length,
      lines.filter((l) => l.includes(early.invoiceNumber) || l.includes(late.invoiceNumber)).length,
    ],
    [2, 2],
    'the CSV: the same two payments',
  );
  t.same(
    (await viewer.get('/api/v1/admin/invoices?from=2026-11-30')).body.data.length,
    1,
    'from: the local day’s midnight on',
  );
  const report = await viewer.get('/api/v1/admin/reports/revenue?from=2026-11-29&to=2026-11-29');
  t.match(report.body.data.totals, { sales: 2 }, 'the report’s day holds the same sales');
});

t.test('with site_id, a bare date is a day of that site’s time zone, ahead of the venue', async (t) => {
  // 11:30 UTC on the 28th is 14:30 on the 28th in Dar es Salaam, 01:30 on the 29th at Kiritimati (UTC+14).
  const app = await startTestApp(t, { clock: new ManualClock('2026-11-28T11:30:00Z') });
  const harbour = await aSite(app.app, { time_zone: 'Pacific/Kiritimati' });
  const plan = await aPlan(app.app, { price_tzs: 2500, site_id: harbour.id });
  const sale = await aPaidPurchase(app, plan);
  app.clock.advance('1h');
  const owner = await staffClient(app, 'owner');
  const numbers = async (path: string) => {
    const res = await owner.get(path);
    t.equal(res.status, 200, path);
    return (res.body.data as { number?: string; invoice_number?: string }[]).map(
      (r) => r.number ?? r.invoice_number,
    );
  };

  t.same(await numbers('/api/v1/admin/invoices?site_id=harbour&from=2026-11-29'), [sale.invoiceNumber]);
  t.same(await numbers('/api/v1/admin/invoices?site_id=harbour&to=2026-11-28'), [], 'not the day before');
  t.same(await numbers(`/api/v1/admin/payments?site_id=${harbour.id}&from=2026-11-29&to=2026-11-29`), [
    sale.invoiceNumber,
  ]);
  t.same(
    await numbers('/api/v1/admin/invoices?from=2026-11-28&to=2026-11-28'),
    [sale.invoiceNumber],
    'without site_id, the venue’s day',
  );
  const report = await owner.get('/api/v1/admin/reports/revenue?site=harbour&from=2026-11-29&to=2026-11-29');
  t.match(report.body.data.totals, { sales: 1 }, 'the site’s report puts it on the same day');
});

t.test('CSV: the filtered list as a download, by format=csv or Accept: text/csv', async (t) => {
  const app = await startTestApp(t);
  const { paid } = await records(app);
  const viewer = await staffClient(app, 'viewer');
  const csv = await csvOf(viewer, '/api/v1/admin/invoices?format=csv&status=paid&page=2');
  t.equal(csv.status, 200);
  t.equal(csv.headers.get('content-type'), 'text/csv; charset=utf-8');
  t.match(csv.headers.get('content-disposition'), /^attachment; filename="invoices-\d{4}-\d{2}-\d{2}\.csv"$/);
  t.equal(csv.headers.get('x-truncated'), 'false');
  const lines = csv.text.split('\r\n');
  t.equal(
    lines[0],
    'number,created_at,plan_name,phone,amount_tzs,status,provider,provider_reference,paid_at,failure_reason,channel,site_id,sold_by_name',
  );
  t.equal(
    lines.length,
    5,
    'a header, the three paid invoices (a page number does not cut an export), and the end',
  );
  t.match(lines[1], new RegExp(`^${paid[2]?.invoiceNumber ?? ''},.*,Hour,\\*{10}111,1000,paid,`));
  const accepted = await csvOf(viewer, '/api/v1/admin/sessions?q=guest-0', { Accept: 'text/csv' });
  t.equal(accepted.status, 200);
  t.match(accepted.text, /^id,started_at,.*\r\n[^\r\n]+,guest-0,11:22:33:44:55:70,/);
  const json = await viewer.get('/api/v1/admin/sessions?format=json');
  t.equal(json.body.data.length, 3, 'format=json is the plain list');
});

t.test(
  'viewers see guests’ phones by their last 3 digits in every list and CSV; owners in full',
  async (t) => {
    const app = await startTestApp(t);
    await records(app);
    const viewer = await staffClient(app, 'viewer');
    const owner = await staffClient(app, 'owner');
    // What a viewer should see of a whole number: its last 3 digits.
    const masked = (text: string) => text.replace(/\+255\d{6}(\d{3})/g, '**********$1');
    for (const list of ['guests', 'invoices', 'payments', 'grants']) {
      const full = await owner.get(`/api/v1/admin/${list}`);
      const seen = await viewer.get(`/api/v1/admin/${list}`);
      t.equal(seen.status, 200);
      t.match(JSON.stringify(full.body.data), /"phone":"\+255\d{9}"/, `${list}: an owner sees whole numbers`);
      t.notMatch(JSON.stringify(seen.body.data), /\+255/, `${list}: a viewer does not`);
      t.same(
        seen.body.data,
        JSON.parse(masked(JSON.stringify(full.body.data))),
        `${list}: only the last 3 digits`,
      );
      if (list === 'grants') continue;
      const csv = await csvOf(owner, `/api/v1/admin/${list}?format=csv`);
      t.match(csv.text, /\+255\d{9}/);
      t.equal(
        (await csvOf(viewer, `/api/v1/admin/${list}?format=csv`)).text,
        masked(csv.text),
        `${list}: the CSV too`,
      );
    }
    const found = await viewer.get('/api/v1/admin/guests?q=0755%20000%20111');
    t.same(
      found.body.data.map((g: { phone: string }) => g.phone),
      ['**********111'],
      'a search by the number shows it masked',
    );
  },
);

t.test('grants: search, state, date range, pages and CSV like the other lists', async (t) => {
  const app = await startTestApp(t);
  const { paid } = await records(app);
  const operator = await staffClient(app, 'operator');
  const users = (res: { body: { data: { invoice_number: string }[] } }) =>
    res.body.data.map((g) => g.invoice_number);
  const newestFirst = [paid[2], paid[1], paid[0]].map((p) => p?.invoiceNumber);

  const plain = await operator.get('/api/v1/admin/grants');
  t.same(users(plain), newestFirst, 'the plain list as before');
  t.equal(plain.headers.get('x-has-more'), null);
  t.same(users(await operator.get('/api/v1/admin/grants?q=0755%20000%20111')), [paid[2]?.invoiceNumber]);
  t.same(users(await operator.get(`/api/v1/admin/grants?q=${paid[0]?.invoiceNumber.toLowerCase() ?? ''}`)), [
    paid[0]?.invoiceNumber,
  ]);

  const first = await operator.get('/api/v1/admin/grants?per_page=2');
  t.same([users(first), first.headers.get('x-has-more')], [newestFirst.slice(0, 2), 'true']);
  const second = await operator.get('/api/v1/admin/grants?per_page=2&page=2');
  t.same([users(second), second.headers.get('x-has-more')], [newestFirst.slice(2), 'false']);

  const grant = plain.body.data[1] as { id: string };
  t.equal((await operator.post(`/api/v1/admin/grants/${grant.id}/revoke`, { reason: 'test' })).status, 200);
  t.same(users(await operator.get('/api/v1/admin/grants?status=revoked')), [paid[1]?.invoiceNumber]);
  t.same(
    users(await operator.get('/api/v1/admin/grants?status=live')),
    [paid[2], paid[0]].map((p) => p?.invoiceNumber),
  );
  app.clock.advance('2h');
  t.same(users(await operator.get('/api/v1/admin/grants?status=live')), []);
  t.same(users(await operator.get('/api/v1/admin/grants?status=ended')).length, 2);
  t.same(users(await operator.get('/api/v1/admin/grants?to=2001-01-01')), []);

  const bad = await operator.get('/api/v1/admin/grants?status=paid');
  t.same([bad.status, bad.body], [422, { message: 'status is not one this list knows' }]);
  const csv = await csvOf(operator, '/api/v1/admin/grants?format=csv&q=0712345678');
  t.match(csv.headers.get('content-disposition'), /filename="grants-\d{4}-\d{2}-\d{2}\.csv"/);
  const lines = csv.text.split('\r\n');
  t.equal(
    lines[0],
    'issued_at,username,invoice_number,phone,plan_name,channel,amount_tzs,expires_at,revoked_at,refunded_at,live,site_id',
  );
  t.equal(lines.length, 4, 'the header, the two grants of that phone and the end');
});

t.test('CSV: the whole list, read a page at a time, however many pages', async (t) => {
  const app = await startTestApp(t);
  await records(app);
  const owner = await staffClient(app, 'owner');
  const whole = {
    invoices: await csvOf(owner, '/api/v1/admin/invoices?format=csv'),
    sessions: await csvOf(owner, '/api/v1/admin/sessions?format=csv'),
    audit: await csvOf(owner, '/api/v1/admin/audit?format=csv'),
  };
  t.equal(whole.invoices.text.split('\r\n').length, 6, 'the header, 4 invoices, the end');
  const before = CSV_PAGE.rows;
  t.teardown(() => {
    CSV_PAGE.rows = before;
  });
  // Pages of 2 (and of 1): 4 invoices and 3 sessions span several, one of them full at the end.
  for (const rows of [2, 1]) {
    CSV_PAGE.rows = rows;
    for (const [list, full] of Object.entries(whole)) {
      const paged = await csvOf(owner, `/api/v1/admin/${list}?format=csv`);
      t.equal(paged.status, 200);
      t.equal(paged.headers.get('x-truncated'), 'false');
      t.equal(paged.text, full.text, `${list} in pages of ${String(rows)}: every row once, in order`);
    }
  }
});

t.test('invoices and payments: who sold at the counter, as a field, a filter and a CSV column', async (t) => {
  const app = await startTestApp(t);
  const { hour, paid } = await records(app);
  const asha = await staffClient(app, 'operator');
  const ravi = await staffClient(app, 'operator');
  const viewer = await staffClient(app, 'viewer');
  const sale = async (client: Client, body: Record<string, unknown>) => {
    app.clock.advance('1m');
    const res = await client.post('/api/v1/admin/grants', { plan_id: hour.id, ...body });
    t.equal(res.status, 201);
    return res.body.data.invoice.number as string;
  };
  const ashaCash = await sale(asha, { channel: 'cash', amount_tzs: 1000 });
  const ashaGift = await sale(asha, { channel: 'complimentary' });
  const raviCash = await sale(ravi, { channel: 'cash', amount_tzs: 2000 });

  type Listed = {
    number?: string;
    invoice_number?: string;
    sold_by: string | null;
    sold_by_name: string | null;
  };
  const listed = async (path: string) =>
    ((await viewer.get(path)).body.data as Listed[]).map((r) => [
      r.number ?? r.invoice_number,
      r.sold_by_name,
    ]);
  const invoices = await viewer.get('/api/v1/admin/invoices');
  t.match(invoices.body.data[0], { number: raviCash, sold_by_name: ravi.email, sold_by: /^[0-9a-f-]{36}$/ });
  t.match(
    (invoices.body.data as Listed[]).find((i) => i.number === paid[0]?.invoiceNumber),
    { sold_by: null, sold_by_name: null },
    'a mobile-money sale was sold by nobody at the counter',
  );
  t.same(
    await listed(`/api/v1/admin/invoices?seller=${encodeURIComponent(asha.email.toUpperCase())}`),
    [
      [ashaGift, asha.email],
      [ashaCash, asha.email],
    ],
    'by email, whatever its case',
  );
  const raviId = (invoices.body.data as Listed[])[0]?.sold_by ?? '';
  t.same(await listed(`/api/v1/admin/payments?seller=${raviId}`), [[raviCash, ravi.email]], 'by id');
  t.same(
    await listed(`/api/v1/admin/payments?seller=${encodeURIComponent(asha.email)}&kind=cash`),
    [[ashaCash, asha.email]],
    'with the other filters',
  );
  t.same(await listed('/api/v1/admin/payments?seller=nobody@venue.test'), []);
  const csv = await csvOf(
    viewer,
    `/api/v1/admin/payments?format=csv&seller=${encodeURIComponent(ravi.email)}`,
  );
  const [head, line] = csv.text.split('\r\n');
  t.equal(
    head,
    'paid_at,invoice_number,amount_tzs,phone,provider,provider_reference,channel,site_id,sold_by_name',
  );
  t.match(line, new RegExp(`^[^,]+,${raviCash},2000,.*,cash,default,${ravi.email.replace(/\./g, '\\.')}$`));
});
