import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { ManualClock } from '../../src/lib/clock.js';
import { startTestApp } from '../helpers/app.js';
import type { Client } from '../helpers/client.js';
import { staffClient } from '../helpers/staff.js';
import { aPaidPurchase, aPlan, aSite, credentialsOf, wifiRows } from '../helpers/wifi.js';

/**
 * Issue 21: GET /api/v1/admin/sms lists every SMS the box sent (guests' logins, reminders,
 * account codes, staff messages) with its delivery state; the audit list takes the admin lists'
 * filters, pages and CSV.
 */

interface Sms {
  kind: string;
  recipient: string;
  message: string;
  state: string;
  attempts: number;
  error: string | null;
  site_id: string | null;
}

const csvOf = async (client: Client, path: string) => {
  const res = await fetch(`${client.base}${path}`, {
    headers: { ...client.headers, Cookie: client.cookieHeader() },
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
};

/** An SMS gateway (SMS_PROVIDER=http) that refuses the first `refusals` messages. */
async function flakyGateway(t: Test, refusals: number) {
  let n = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      n++;
      const ok = n > refusals;
      res.writeHead(ok ? 200 : 503, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(ok ? { id: `gw-${String(n)}` } : { error: 'busy' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  t.teardown(() => server.close());
  return `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/send`;
}

t.test(
  'the guest login SMS is listed with its state, password blanked; viewers see masked phones',
  async (t) => {
    const app = await startTestApp(t);
    const paid = await aPaidPurchase(app, await aPlan(app.app, { name: 'Hour' }));
    const { password } = await credentialsOf(app, paid.invoiceId, paid.key);
    const operator = await staffClient(app, 'operator');
    app.clock.advance('1m');
    t.equal(
      (await operator.post('/api/v1/admin/messages', { recipient: '0755000111', message: 'Hi' })).status,
      202,
    );

    const all = (await operator.get('/api/v1/admin/sms')).body.data as Sms[];
    t.match(all, [
      { kind: 'staff', recipient: '+255755000111', message: 'Hi', state: 'sent', attempts: 1 },
      { kind: 'credentials', recipient: '+255712345678', state: 'sent', attempts: 1, error: null },
    ]);
    const login = all[1];
    t.match(login?.message, /password ••••••, valid 1h\. Invoice /);
    t.notOk(login?.message.includes(password), 'the password is not kept');
    t.ok(login?.site_id, 'the login SMS has the purchase’s site');
    const stored = await app.app.deps.db.selectFrom('sms_messages').select('message').execute();
    t.notOk(
      stored.some((m) => m.message.includes(password)),
      'no row of the SMS log holds the password',
    );

    // /api/v1/admin/messages (the spec's list) stays the staff messages.
    const messages = (await operator.get('/api/v1/admin/messages')).body.data as { message: string }[];
    t.same(
      messages.map((m) => m.message),
      ['Hi'],
    );

    const viewer = await staffClient(app, 'viewer');
    const seen = (await viewer.get('/api/v1/admin/sms')).body.data as Sms[];
    t.same(
      seen.map((m) => m.recipient),
      ['**********111', '**********678'],
      'viewers see the last 3 digits',
    );
    const csv = await csvOf(viewer, '/api/v1/admin/sms?format=csv');
    t.match(csv.headers.get('content-disposition'), /filename="sms-\d{4}-\d{2}-\d{2}\.csv"/);
    t.equal(
      csv.text.split('\r\n')[0],
      'created_at,kind,recipient,message,sender_id,state,attempts,error,provider_reference,updated_at,site_id',
    );
    t.notOk(csv.text.includes('+255712345678'), 'the CSV masks phones for viewers too');
  },
);

t.test('SMS list filters: kind, state, phone, date range, pages; bad values are 422', async (t) => {
  const app = await startTestApp(t);
  const plan = await aPlan(app.app);
  await aPaidPurchase(app, plan, { phone: '0712345678' });
  app.clock.advance('1d');
  await aPaidPurchase(app, plan, { phone: '0788999000' });
  const operator = await staffClient(app, 'operator');
  await operator.post('/api/v1/admin/messages', { recipient: '0712345678', message: 'Karibu' });
  const list = async (query: string) =>
    ((await operator.get(`/api/v1/admin/sms?${query}`)).body.data as Sms[]).map(
      (m) => `${m.kind} ${m.recipient}`,
    );

  t.same(await list('kind=credentials'), ['credentials +255788999000', 'credentials +255712345678']);
  t.same(await list('q=0712 345 678'), ['staff +255712345678', 'credentials +255712345678']);
  t.same(await list('status=sent&kind=staff'), ['staff +255712345678']);
  t.same(await list('status=failed'), []);
  const day = app.clock.now().toISOString().slice(0, 10);
  t.same(await list(`to=${day}&from=${day}&kind=credentials`), ['credentials +255788999000']);

  const first = await operator.get('/api/v1/admin/sms?per_page=2');
  t.equal(first.headers.get('x-has-more'), 'true');
  t.equal((first.body.data as Sms[]).length, 2);
  const second = await operator.get('/api/v1/admin/sms?per_page=2&page=2');
  t.equal(second.headers.get('x-has-more'), 'false');
  t.equal((second.body.data as Sms[]).length, 1);

  const before = await wifiRows(app.app.deps.db);
  for (const [query, message] of [
    ['kind=sms', 'kind is not one this list knows'],
    ['status=accepted', 'status is not one this list knows'],
    ['from=yesterday', 'from and to must be ISO-8601 dates or date-times'],
    ['per_page=500', 'per_page must be a whole number from 1 to 200'],
  ] as const) {
    const res = await operator.get(`/api/v1/admin/sms?${query}`);
    t.equal(res.status, 422, query);
    t.equal(res.body.message, message, query);
  }
  t.same(await wifiRows(app.app.deps.db), before, 'nothing changed');
  t.equal((await new (operator.constructor as typeof Client)(app.base).get('/api/v1/admin/sms')).status, 401);
});

t.test(
  'a refused SMS is failed with the error; its retry counts as a second attempt of the row',
  async (t) => {
    const url = await flakyGateway(t, 1);
    const app = await startTestApp(t, { env: { SMS_PROVIDER: 'http', SMS_HTTP_URL: url } });
    const send = () =>
      app.app.deps.notifier.sendSms({
        to: '+255712345678',
        message: 'Wi-Fi ends in 10 minutes',
        log: { kind: 'reminder_ends', text: 'Wi-Fi ends in 10 minutes', key: 'reminder_ends:g1' },
      });
    const admin = await staffClient(app, 'admin');
    t.equal((await send()).ok, false);
    t.match((await admin.get('/api/v1/admin/sms')).body.data, [
      { kind: 'reminder_ends', state: 'failed', attempts: 1, error: /503/ },
    ]);
    t.match((await admin.get('/api/v1/admin/sms?status=failed')).body.data, [{ kind: 'reminder_ends' }]);
    app.clock.advance('1m');
    t.equal((await send()).ok, true);
    const rows = (await admin.get('/api/v1/admin/sms')).body.data as Sms[];
    t.match(rows, [{ kind: 'reminder_ends', state: 'sent', attempts: 2, error: null }]);
    t.equal(rows.length, 1, 'one row for the message and its retry');

    // A message sent without saying what to keep is logged as `other`, with no text.
    await app.app.deps.notifier.sendSms({ to: '+255712345678', message: 'secret 123456' });
    t.match((await admin.get('/api/v1/admin/sms?kind=other')).body.data, [{ kind: 'other', message: '' }]);
  },
);

t.test('audit list: who, action, record, search, date range, pages and CSV', async (t) => {
  const app = await startTestApp(t);
  const admin = await staffClient(app, 'admin');
  const other = await staffClient(app, 'admin');
  t.equal(
    (await admin.post('/api/v1/admin/plans', { name: 'Hour', duration_seconds: 3600, price_tzs: 1000 }))
      .status,
    201,
  );
  // Sessions last 12 hours: the second half of the range is 11 hours on.
  app.clock.advance('11h');
  const later = app.clock.now().toISOString();
  await other.post('/api/v1/admin/plans', { name: 'Day', duration_seconds: 86400, price_tzs: 3000 });
  app.clock.advance('1m');
  await admin.post('/api/v1/admin/messages', { recipient: '0712345678', message: 'Karibu' });
  const list = async (query: string) =>
    ((await admin.get(`/api/v1/admin/audit?${query}`)).body.data as { actor: string; action: string }[]).map(
      (e) => `${e.actor} ${e.action}`,
    );
  const [a, o] = [admin.email, other.email];

  t.same(await list('per_page=50'), [`${a} sms.send`, `${o} plan.create`, `${a} plan.create`]);
  t.same(await list(`per_page=50&actor=${encodeURIComponent(a.toUpperCase())}`), [
    `${a} sms.send`,
    `${a} plan.create`,
  ]);
  t.same(
    await list('per_page=50&action=plan'),
    [`${o} plan.create`, `${a} plan.create`],
    'a target’s actions',
  );
  t.same(await list('per_page=50&action=sms.send'), [`${a} sms.send`]);
  t.same(await list('per_page=50&action=pla'), [], 'an action is matched whole or by its target');
  t.same(await list('per_page=50&target=sms'), [`${a} sms.send`]);
  t.same(await list('per_page=50&q=Day'), [`${o} plan.create`], 'q searches the records too');
  const today = app.clock.now().toISOString().slice(0, 10);
  t.same(await list(`per_page=50&from=${later}&to=${today}`), [`${a} sms.send`, `${o} plan.create`]);
  t.same(await list(`per_page=50&to=${later.slice(0, 13)}:00:00Z`), [`${a} plan.create`]);

  const page = await admin.get('/api/v1/admin/audit?per_page=2&page=2');
  t.equal(page.headers.get('x-has-more'), 'false');
  t.same((page.body.data as unknown[]).length, 1);
  t.equal((await admin.get('/api/v1/admin/audit?per_page=2')).headers.get('x-has-more'), 'true');

  const csv = await csvOf(admin, '/api/v1/admin/audit?format=csv&action=plan.create');
  t.equal(csv.status, 200);
  const lines = csv.text.trim().split('\r\n');
  t.equal(lines[0], 'at,actor,action,target_type,target_id,site_id,reason,before,after');
  t.equal(lines.length, 3);
  t.match(lines[1], /"\{""id"":.*""name"":""Day""/);

  // Without page, per_page or format: the cursor pages as before.
  const cursor = await admin.get('/api/v1/admin/audit?limit=2&action=plan');
  t.same(Object.keys(cursor.body as object).sort(), ['data', 'next_cursor']);
  t.equal((cursor.body.data as unknown[]).length, 2);
  t.equal(cursor.body.next_cursor, null);

  const res = await admin.get(`/api/v1/admin/audit?per_page=5&actor=${'x'.repeat(101)}`);
  t.equal(res.status, 422);
  t.equal(res.body.message, 'actor, action and target must be at most 100 characters');
  t.equal((await (await staffClient(app, 'operator')).get('/api/v1/admin/audit?per_page=5')).status, 403);
});

t.test(
  'audit list by cursor: a bare date is a day of the venue’s (or the one site’s) time zone',
  async (t) => {
    // VENUE_TIMEZONE Kiritimati is UTC+14: 11:30 UTC on the 28th is 01:30 on 29 November there.
    const app = await startTestApp(t, {
      clock: new ManualClock('2026-11-28T11:30:00Z'),
      env: { VENUE_TIMEZONE: 'Pacific/Kiritimati' },
    });
    // Staff sessions last 12 hours: each step signs in afresh.
    const plan = async (name: string, client?: Client, extra: object = {}) =>
      (client ?? (await staffClient(app, 'owner'))).post('/api/v1/admin/plans', {
        name,
        price_tzs: 1000,
        duration_seconds: 3600,
        ...extra,
      });
    t.equal((await plan('Early')).status, 201); // 01:30 on the 29th
    app.clock.advance('22h'); // 23:30 on the 29th
    await plan('Late');
    app.clock.advance('1h'); // 00:30 on the 30th
    await plan('Next');
    const owner = await staffClient(app, 'owner');
    const names = async (client: Client, query: string) => {
      const res = await client.get(`/api/v1/admin/audit?${query}`);
      t.equal(res.status, 200, query);
      return (res.body.data as { after: { name: string } }[]).map((e) => e.after.name);
    };

    const day = 'from=2026-11-29&to=2026-11-29';
    t.same(await names(owner, day), ['Late', 'Early'], 'the local day, from its midnight to the next');
    t.same(await names(owner, 'from=2026-11-30'), ['Next']);
    t.same(await names(owner, 'to=2026-11-28'), [], 'nothing on the day before');
    t.same(await names(owner, `${day}&per_page=50`), ['Late', 'Early'], 'the same days as page/per_page');
    t.same(
      await names(owner, 'from=2026-11-29T11:30:00Z&to=2026-11-29T09:30:00Z'),
      [],
      'date-times as before',
    );
    for (const query of ['from=2026-02-31', 'to=2026-02-29', 'from=2026-02-31T10:00:00Z', 'from=yesterday'])
      t.match(
        await owner.get(`/api/v1/admin/audit?${query}`),
        { status: 422, body: { message: 'from and to must be ISO-8601 date-times' } },
        query,
      );

    // An admin of one site at Honolulu (UTC-10) reads that site's days: 10:31 UTC on the 29th is
    // 00:31 on the 29th there, 00:31 on the 30th at the venue (a minute after Next: newest first).
    app.clock.advance('1m');
    const honolulu = await aSite(app.app, {
      slug: 'honolulu',
      name: 'Honolulu',
      time_zone: 'Pacific/Honolulu',
    });
    const admin = await staffClient(app, 'admin', [honolulu.id]);
    t.equal((await plan('Island', admin, { site_id: honolulu.id })).status, 201);
    t.same(await names(admin, 'from=2026-11-29&to=2026-11-29'), ['Island'], 'the site’s day');
    t.same(await names(admin, 'to=2026-11-28'), []);
    t.same(await names(owner, 'from=2026-11-30&to=2026-11-30'), ['Island', 'Next'], 'the venue’s day');
  },
);
