import t from 'tap';
import { readOutbox } from '../../src/notify/index.js';
import { authorize } from '../../src/wifi/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { staffClient } from '../helpers/staff.js';
import { aPaidPurchase, aPlan, aPurchaseKey, postPurchase, wifiRows } from '../helpers/wifi.js';

/**
 * The counter tools and the audit trail through the admin API (DESIGN.md §4.8, README "Counter
 * tools"): issue, extend, revoke, re-check, mark paid by hand; roles; refusals change nothing.
 */

const auditRows = (app: TestApp) => app.app.deps.db.selectFrom('wifi_audit').selectAll().execute();

/** Every Wi-Fi row and every audit entry: what a refused request must leave alone. */
const everything = async (app: TestApp) => ({
  ...(await wifiRows(app.app.deps.db)),
  audit: await auditRows(app),
});

const pending = async (app: TestApp, planId: string, phone = '0712000001') => {
  const res = await postPurchase(app.base, { plan_id: planId, phone }, aPurchaseKey());
  if (!res.body.data) throw new Error(JSON.stringify(res.body));
  return res.body.data;
};

t.test(
  'issue at the counter: cash and complimentary, credentials once, SMS when a phone is given',
  async (t) => {
    const app = await startTestApp(t);
    const plan = await aPlan(app.app, { price_tzs: 2000, duration_seconds: 7200 });
    const viewer = await staffClient(app, 'viewer');
    const operator = await staffClient(app, 'operator');

    t.match(await viewer.post('/api/v1/admin/grants', { plan_id: plan.id, channel: 'complimentary' }), {
      status: 403,
      body: { message: 'your staff role does not allow this' },
    });

    const cash = await operator.post('/api/v1/admin/grants', {
      plan_id: plan.id,
      phone: '0712 345 678',
      channel: 'cash',
      amount_tzs: 1500,
    });
    t.equal(cash.status, 201);
    t.equal(cash.headers.get('cache-control'), 'no-store');
    const sale = cash.body.data;
    t.match(sale, {
      invoice: {
        status: 'paid',
        channel: 'cash',
        amount_tzs: 1500,
        phone: '+255712345678',
        provider: 'counter',
        plan_id: plan.id,
      },
      grant: { username: String, expires_at: '2026-01-15T11:00:00.000Z', revoked_at: null },
      credentials: {
        username: sale.grant.username,
        password: String,
        expires_at: '2026-01-15T11:00:00.000Z',
      },
    });
    t.notOk('password' in sale.grant, 'the grant itself never shows the password');
    const me = (await operator.get('/api/v1/admin/auth/me')).body.data;
    const rows = await wifiRows(app.app.deps.db);
    t.match(rows.invoices, [{ id: sale.invoice.id, sold_by: me.staff_id, channel: 'cash', status: 'paid' }]);
    t.match(rows.payments, [
      {
        invoice_id: sale.invoice.id,
        channel: 'cash',
        amount_tzs: 1500,
        provider: 'counter',
        phone: '+255712345678',
      },
    ]);
    t.match(rows.grants, [{ id: sale.grant.id, invoice_id: sale.invoice.id }]);
    const decision = await authorize(app.app.deps, {
      username: sale.credentials.username,
      check: (p) => p === sale.credentials.password,
    });
    t.match(decision, { decision: 'accept', secondsLeft: 7200 }, 'the credentials log in');
    t.match(await readOutbox(app.dataDir), [
      {
        channel: 'sms',
        to: '+255712345678',
        text: `Hotspot Wi-Fi: username ${sale.credentials.username} password ${sale.credentials.password}, valid 2h. Invoice ${sale.invoice.number}.`,
      },
    ]);

    const gift = await operator.post('/api/v1/admin/grants', { plan_id: plan.id, channel: 'complimentary' });
    t.equal(gift.status, 201);
    t.match(gift.body.data.invoice, { channel: 'complimentary', amount_tzs: 0, phone: '' });
    t.match(
      (await wifiRows(app.app.deps.db)).payments!.find(
        (p) => (p as { invoice_id: string }).invoice_id === gift.body.data.invoice.id,
      ),
      { channel: 'complimentary', amount_tzs: 0, phone: null },
    );
    t.equal((await readOutbox(app.dataDir)).length, 1, 'no phone, no SMS');

    const audit = await auditRows(app);
    t.match(audit, [
      {
        action: 'grant.issue',
        target_type: 'grant',
        target_id: sale.grant.id,
        actor_id: me.staff_id,
        actor: operator.email,
      },
      { action: 'grant.issue', target_type: 'grant', target_id: gift.body.data.grant.id },
    ]);
    t.notMatch(JSON.stringify(audit), sale.credentials.password, 'no password in the audit trail');

    const before = await everything(app);
    const refused: [unknown, number, string][] = [
      [
        { plan_id: plan.id, channel: 'cash' },
        422,
        'amount_tzs must be a whole number from 1 to 10000000 for a cash sale',
      ],
      [
        { plan_id: plan.id, channel: 'cash', amount_tzs: 0 },
        422,
        'amount_tzs must be a whole number from 1 to 10000000 for a cash sale',
      ],
      [
        { plan_id: plan.id, channel: 'cash', amount_tzs: 12.5 },
        422,
        'amount_tzs must be a whole number from 1 to 10000000 for a cash sale',
      ],
      [
        { plan_id: plan.id, channel: 'complimentary', amount_tzs: 500 },
        422,
        'a complimentary grant takes no amount_tzs (or 0)',
      ],
      [{ plan_id: plan.id, channel: 'mobile_money' }, 422, 'channel must be cash or complimentary'],
      [{ plan_id: plan.id }, 422, 'channel must be cash or complimentary'],
      [
        { plan_id: '00000000-0000-4000-8000-000000000000', channel: 'complimentary' },
        422,
        'plan_id must be the id of a plan of a site you can see',
      ],
      [{ channel: 'complimentary' }, 422, 'plan_id must be the id of a plan of a site you can see'],
      [{ plan_id: plan.id, channel: 'complimentary', phone: '12' }, 422, 'invalid phone number'],
      [{ plan_id: plan.id, channel: 'complimentary', extra: 1 }, 400, 'invalid request body'],
      [[plan.id], 400, 'invalid request body'],
    ];
    for (const [body, status, message] of refused)
      t.match(
        await operator.post('/api/v1/admin/grants', body),
        { status, body: { message } },
        JSON.stringify(body),
      );
    t.same(await everything(app), before, 'refusals change nothing');
  },
);

t.test('extend: more time on a live or run-out grant, never on a revoked one', async (t) => {
  const app = await startTestApp(t);
  const plan = await aPlan(app.app, { duration_seconds: 3600 });
  const viewer = await staffClient(app, 'viewer');
  const operator = await staffClient(app, 'operator');
  const { grant } = (
    await operator.post('/api/v1/admin/grants', { plan_id: plan.id, channel: 'complimentary' })
  ).body.data;
  t.equal(grant.expires_at, '2026-01-15T10:00:00.000Z');

  t.equal((await viewer.post(`/api/v1/admin/grants/${grant.id}/extend`, { seconds: 600 })).status, 403);
  const before = await everything(app);
  for (const [body, status, message] of [
    [{ seconds: 59 }, 422, 'seconds must be a whole number from 60 to 31536000'],
    [{ seconds: '600' }, 422, 'seconds must be a whole number from 60 to 31536000'],
    [{}, 422, 'seconds must be a whole number from 60 to 31536000'],
    [{ seconds: 600, reason: '' }, 422, 'reason must be 1-500 characters when given'],
    [{ seconds: 600, minutes: 1 }, 400, 'invalid request body'],
  ] as const)
    t.match(await operator.post(`/api/v1/admin/grants/${grant.id}/extend`, body), {
      status,
      body: { message },
    });
  t.match(
    await operator.post('/api/v1/admin/grants/00000000-0000-4000-8000-000000000000/extend', { seconds: 600 }),
    {
      status: 404,
      body: { message: 'access grant not found' },
    },
  );
  t.same(await everything(app), before);

  const login = { username: grant.username as string, check: () => true };
  t.match(
    await authorize(app.app.deps, login),
    { secondsLeft: 3600 },
    'RADIUS sees the grant (and caches it)',
  );
  const longer = await operator.post(`/api/v1/admin/grants/${grant.id}/extend`, {
    seconds: 1800,
    reason: 'slow network',
  });
  t.equal(longer.status, 200);
  t.equal(longer.body.data.expires_at, '2026-01-15T10:30:00.000Z', 'added to the expiry of a live grant');
  t.match(
    await authorize(app.app.deps, login),
    { secondsLeft: 5400 },
    'the next Access-Request gets the longer Session-Timeout',
  );

  // Run out, handled by the expiry job, then extended: the time runs from now.
  app.clock.advance('2h');
  const { expireDue } = await import('../../src/wifi/index.js');
  t.equal((await expireDue(app.app.deps)).length, 1);
  const revived = await operator.post(`/api/v1/admin/grants/${grant.id}/extend`, { seconds: 600 });
  t.match(revived.body.data, { expires_at: '2026-01-15T11:10:00.000Z', ended_at: null });
  const row = (await wifiRows(app.app.deps.db)).grants![0] as { username: string };
  t.match(await authorize(app.app.deps, { username: row.username, check: () => true }), {
    decision: 'accept',
    secondsLeft: 600,
  });
  app.clock.advance('11m');
  t.equal((await expireDue(app.app.deps)).length, 1, 'its new expiry is handled again');

  const revoked = await operator.post(`/api/v1/admin/grants/${grant.id}/revoke`, {
    reason: 'left the venue',
  });
  t.equal(revoked.status, 200);
  t.match(revoked.body.data, {
    grant: { revoked_at: '2026-01-15T11:11:00.000Z', revoke_reason: 'left the venue' },
    disconnect: { status: 'no_sessions', sessions: [] },
  });
  t.match(await operator.post(`/api/v1/admin/grants/${grant.id}/extend`, { seconds: 600 }), {
    status: 409,
    body: { message: 'the access has been revoked' },
  });
  t.equal(
    (await operator.post(`/api/v1/admin/grants/${grant.id}/revoke`, {})).status,
    200,
    'revoking twice is fine',
  );

  const audit = await auditRows(app);
  t.same(
    audit.map((a) => [a.action, a.reason]),
    [
      ['grant.issue', null],
      ['grant.extend', 'slow network'],
      ['grant.extend', null],
      ['grant.revoke', 'left the venue'],
    ],
    'the second revoke changed nothing and wrote nothing',
  );
  const extend = audit[1]!;
  t.match(JSON.parse(extend.before ?? ''), { expires_at: '2026-01-15T10:00:00.000Z' });
  t.match(JSON.parse(extend.after ?? ''), { expires_at: '2026-01-15T10:30:00.000Z' });

  const list = (await viewer.get('/api/v1/admin/grants')).body.data;
  t.match(list, [
    { id: grant.id, live: false, channel: 'complimentary', plan_name: '1 hour', revoked_at: String },
  ]);
});

t.test('re-check a pending invoice with the provider, and mark one paid by hand', async (t) => {
  const app = await startTestApp(t);
  const plan = await aPlan(app.app, { price_tzs: 1000 });
  const viewer = await staffClient(app, 'viewer');
  const operator = await staffClient(app, 'operator');
  const admin = await staffClient(app, 'admin');
  const invoice = await pending(app, plan.id);

  t.equal((await viewer.post(`/api/v1/admin/invoices/${invoice.invoice_id}/recheck`)).status, 403);
  t.match(await operator.post(`/api/v1/admin/invoices/${invoice.invoice_id}/recheck`, { x: 1 }), {
    status: 400,
    body: { message: 'invalid request body' },
  });
  // An empty object is no body at all (the calls below send none).
  const still = await operator.post(`/api/v1/admin/invoices/${invoice.invoice_id}/recheck`, {});
  t.match(still, {
    status: 200,
    body: { data: { provider_status: 'pending', outcome: null, invoice: { status: 'pending' } } },
  });

  const provider = app.app.deps.payments as { queryStatus: unknown };
  const sandboxQuery = provider.queryStatus;
  t.teardown(() => {
    provider.queryStatus = sandboxQuery;
  });
  provider.queryStatus = () => Promise.resolve({ status: 'unknown', detail: 'timeout' });
  const before = await everything(app);
  t.match(await operator.post(`/api/v1/admin/invoices/${invoice.invoice_id}/recheck`), {
    status: 502,
    body: { message: 'the payment provider could not say what became of the payment' },
  });
  t.same(await everything(app), before, 'a provider that cannot say changes nothing');

  provider.queryStatus = (q: { number: string; amountTzs: number }) =>
    Promise.resolve({
      status: 'succeeded',
      event: {
        provider: 'sandbox',
        id: `poll:${q.number}`,
        type: 'payment.succeeded',
        invoiceNumber: q.number,
        amountTzs: q.amountTzs,
        phone: '+255712000001',
        providerReference: 'MP-RECHECK',
      },
    });
  const paid = await operator.post(`/api/v1/admin/invoices/${invoice.invoice_id}/recheck`);
  t.match(paid.body.data, {
    provider_status: 'succeeded',
    outcome: 'paid',
    invoice: { status: 'paid', provider_reference: 'MP-RECHECK' },
  });
  t.match(
    await readOutbox(app.dataDir),
    [{ to: '+255712000001', text: /username [a-z2-9]+ password/ }],
    'the credentials SMS',
  );
  t.match(await operator.post(`/api/v1/admin/invoices/${invoice.invoice_id}/recheck`), {
    status: 409,
    body: { message: 'the invoice is already paid' },
  });
  const counter = (
    await operator.post('/api/v1/admin/grants', { plan_id: plan.id, channel: 'complimentary' })
  ).body.data;
  t.match(await operator.post(`/api/v1/admin/invoices/${counter.invoice.id}/recheck`), { status: 409 });
  t.match(await operator.post('/api/v1/admin/invoices/00000000-0000-4000-8000-000000000000/recheck'), {
    status: 404,
    body: { message: 'invoice not found' },
  });

  // Mark paid by hand: admins only, with a reason.
  const other = await pending(app, plan.id, '0712000002');
  t.equal(
    (await operator.post(`/api/v1/admin/invoices/${other.invoice_id}/mark-paid`, { reason: 'receipt shown' }))
      .status,
    403,
  );
  const unchanged = await everything(app);
  for (const body of [{}, { reason: '   ' }, { reason: 'x'.repeat(501) }])
    t.match(await admin.post(`/api/v1/admin/invoices/${other.invoice_id}/mark-paid`, body), {
      status: 422,
      body: { message: 'reason must be 1-500 characters' },
    });
  t.same(await everything(app), unchanged);
  const marked = await admin.post(`/api/v1/admin/invoices/${other.invoice_id}/mark-paid`, {
    reason: 'M-Pesa receipt shown, callback never came',
  });
  t.equal(marked.status, 200);
  t.match(marked.body.data, {
    invoice: { status: 'paid', channel: 'mobile_money' },
    credentials: { password: String },
  });
  const payments = (await wifiRows(app.app.deps.db)).payments!;
  t.match(
    payments.find((p) => (p as { invoice_id: string }).invoice_id === other.invoice_id),
    {
      invoice_id: other.invoice_id,
      provider: 'by_hand',
      amount_tzs: 1000,
      channel: 'mobile_money',
    },
  );
  t.match((await readOutbox(app.dataDir)).at(-1), {
    to: '+255712000002',
    text: new RegExp(marked.body.data.credentials.password),
  });
  t.match(await admin.post(`/api/v1/admin/invoices/${other.invoice_id}/mark-paid`, { reason: 'again' }), {
    status: 409,
    body: { message: 'the invoice is already paid' },
  });

  const audit = await auditRows(app);
  t.match(
    audit.filter((a) => a.target_type === 'invoice'),
    [
      { action: 'invoice.recheck', reason: 'provider says pending' },
      { action: 'invoice.recheck', reason: 'provider says succeeded' },
      {
        action: 'invoice.mark_paid',
        reason: 'M-Pesa receipt shown, callback never came',
        actor: admin.email,
      },
    ],
  );
});

t.test(
  'the audit trail: admins read it, filtered and a page at a time; existing staff actions land in it',
  async (t) => {
    const app = await startTestApp(t);
    const operator = await staffClient(app, 'operator');
    const admin = await staffClient(app, 'admin');
    const plan = (
      await admin.post('/api/v1/admin/plans', { name: 'Day', price_tzs: 3000, duration_seconds: 86400 })
    ).body.data;
    app.clock.advance('1s');
    await admin.patch(`/api/v1/admin/plans/${plan.id}`, { price_tzs: 3500 });
    app.clock.advance('1s');
    const device = (
      await admin.post('/api/v1/admin/devices', {
        name: 'Lobby AP',
        model: 'MikroTik hAP ac2',
        mac_address: 'AA:BB:CC:DD:EE:01',
        local_network: '10.1.0.0/24',
        uam_server: 'http://10.1.0.10:8080/portal',
        radius_nas_id: 'lobby-01',
        radius_client_ip: '10.1.0.1',
      })
    ).body.data;
    app.clock.advance('1s');
    await admin.post(`/api/v1/admin/devices/${device.id}/rotate-secret`);
    app.clock.advance('1s');
    const site = (await admin.post('/api/v1/admin/sites', { slug: 'harbour', name: 'Harbour' })).body.data;
    app.clock.advance('1s');
    await operator.post('/api/v1/admin/messages', {
      recipient: '0712000009',
      message: 'Your table is ready',
    });
    app.clock.advance('1s');
    await aPaidPurchase(app, { ...plan, price_tzs: 3500 });

    t.match(await operator.get('/api/v1/admin/audit'), { status: 403 });
    const all = await admin.get('/api/v1/admin/audit');
    t.equal(all.status, 200);
    t.same(
      all.body.data.map((e: { action: string }) => e.action),
      ['sms.send', 'site.create', 'device.rotate_secret', 'device.create', 'plan.update', 'plan.create'],
      'newest first; a guest purchase is not a staff action',
    );
    t.equal(all.body.next_cursor, null);
    const update = all.body.data[4];
    t.match(update, {
      actor: admin.email,
      target_type: 'plan',
      target_id: plan.id,
      site_id: 'default',
      before: { price_tzs: 3000 },
      after: { price_tzs: 3500 },
    });
    t.notMatch(JSON.stringify(all.body), /radius_secret"/, 'no secret in the trail');
    t.match(all.body.data[1], { target_type: 'site', target_id: site.id, after: { slug: 'harbour' } });

    const page1 = await admin.get('/api/v1/admin/audit?limit=4');
    t.equal(page1.body.data.length, 4);
    const page2 = await admin.get(`/api/v1/admin/audit?limit=4&cursor=${page1.body.next_cursor}`);
    t.same(
      page2.body.data.map((e: { action: string }) => e.action),
      ['plan.update', 'plan.create'],
    );
    t.equal(page2.body.next_cursor, null);

    t.same(
      (await admin.get(`/api/v1/admin/audit?target_type=plan&target_id=${plan.id}`)).body.data.map(
        (e: { action: string }) => e.action,
      ),
      ['plan.update', 'plan.create'],
    );
    t.same(
      (
        await admin.get('/api/v1/admin/audit?from=2026-01-15T09:00:02Z&to=2026-01-15T09:00:04Z')
      ).body.data.map((e: { action: string }) => e.action),
      ['device.rotate_secret', 'device.create'],
      'from inclusive, to exclusive',
    );
    for (const [query, message] of [
      ['limit=0', 'limit must be a whole number from 1 to 200'],
      ['limit=201', 'limit must be a whole number from 1 to 200'],
      ['limit=ten', 'limit must be a whole number from 1 to 200'],
      ['from=yesterday', 'from and to must be ISO-8601 date-times'],
      ['cursor=bm9wZQ', 'cursor is not one this list returned'],
    ] as const)
      t.match(await admin.get(`/api/v1/admin/audit?${query}`), { status: 422, body: { message } }, query);
  },
);

t.test("the overview counts today's revenue per channel and in total", async (t) => {
  const app = await startTestApp(t);
  const plan = await aPlan(app.app, { price_tzs: 2000 });
  const operator = await staffClient(app, 'operator');
  await aPaidPurchase(app, plan);
  await operator.post('/api/v1/admin/grants', { plan_id: plan.id, channel: 'cash', amount_tzs: 1800 });
  await operator.post('/api/v1/admin/grants', { plan_id: plan.id, channel: 'complimentary' });
  t.same((await operator.get('/api/v1/admin/overview')).body.data.today, {
    since: '2026-01-14T21:00:00.000Z',
    timezone: 'Africa/Dar_es_Salaam',
    sales: 3,
    revenue_tzs: 3800,
    refunds: 0,
    refunded_tzs: 0,
    by_channel: {
      mobile_money: { sales: 1, revenue_tzs: 2000, refunds: 0, refunded_tzs: 0 },
      voucher: { sales: 0, revenue_tzs: 0, refunds: 0, refunded_tzs: 0 },
      cash: { sales: 1, revenue_tzs: 1800, refunds: 0, refunded_tzs: 0 },
      complimentary: { sales: 1, revenue_tzs: 0, refunds: 0, refunded_tzs: 0 },
    },
  });
});
