import t from 'tap';
import { authorize } from '../../src/wifi/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { CoaListener, attrText } from '../helpers/coa-listener.js';
import { jsonRequest } from '../helpers/http.js';
import { SECRET } from '../helpers/radius.js';
import { staffClient } from '../helpers/staff.js';
import {
  aDevice,
  aLiveSession,
  aPaidPurchase,
  aPlan,
  aPurchaseKey,
  aSite,
  credentialsOf,
  postPurchase,
  wifiRows,
} from '../helpers/wifi.js';

/**
 * Refunds by hand through the admin API (docs/decisions/0035-refunds.md): admins record that a
 * paid sale's money went back; the refund is a negative payments row of the sale's channel, the
 * invoice is marked refunded, its grant revoked and its sessions disconnected, with one audit
 * entry. Refusals change nothing, and a refund counts once however often it is asked for.
 */

const everything = async (app: TestApp) => ({
  ...(await wifiRows(app.app.deps.db)),
  audit: await app.app.deps.db.selectFrom('wifi_audit').selectAll().execute(),
});

const paymentsOf = async (app: TestApp, invoiceId: string) =>
  (
    await app.app.deps.db.selectFrom('payments').selectAll().where('invoice_id', '=', invoiceId).execute()
  ).sort((a, b) => a.kind.localeCompare(b.kind));

t.test(
  'refund a mobile-money sale: admins only, a reason, the access taken back and the session cut',
  async (t) => {
    const listener = new CoaListener(SECRET);
    const coaPort = await listener.listen();
    t.teardown(() => listener.close());
    const app = await startTestApp(t);
    const { device } = await aDevice(app.app, {
      radius_secret: SECRET,
      radius_client_ip: '127.0.0.1',
      coa_port: coaPort,
    });
    const plan = await aPlan(app.app, { price_tzs: 2000 });
    const purchase = await aPaidPurchase(app, plan);
    const login = await credentialsOf(app, purchase.invoiceId, purchase.key);
    await aLiveSession(app.app, { deviceId: device.id, username: login.username, acctSessionId: 'sess-r1' });
    const viewer = await staffClient(app, 'viewer');
    const operator = await staffClient(app, 'operator');
    const admin = await staffClient(app, 'admin');
    const url = `/api/v1/admin/invoices/${purchase.invoiceId}/refund`;

    const before = await everything(app);
    for (const client of [viewer, operator])
      t.match(await client.post(url, { reason: 'guest left' }), {
        status: 403,
        body: { message: 'your staff role does not allow this' },
      });
    for (const [body, status, message] of [
      [{}, 422, 'reason must be 1-500 characters'],
      [{ reason: ' \t ' }, 422, 'reason must be 1-500 characters'],
      [{ reason: 'x'.repeat(501) }, 422, 'reason must be 1-500 characters'],
      [{ reason: 42 }, 422, 'reason must be 1-500 characters'],
      [{ reason: 'ok', amount_tzs: 500 }, 400, 'invalid request body'],
      [['ok'], 400, 'invalid request body'],
    ] as const)
      t.match(await admin.post(url, body), { status, body: { message } }, JSON.stringify(body));
    t.match(
      await admin.post('/api/v1/admin/invoices/00000000-0000-4000-8000-000000000000/refund', { reason: 'x' }),
      { status: 404, body: { message: 'invoice not found' } },
    );
    t.equal(listener.received.length, 0, 'no Disconnect-Request for a refused refund');
    t.same(await everything(app), before, 'refusals change nothing');

    app.clock.advance('10m');
    const res = await admin.post(url, { reason: '  wrong plan bought; M-Pesa reversed  ' });
    t.equal(res.status, 200, JSON.stringify(res.body));
    t.match(res.body.data, {
      invoice: {
        id: purchase.invoiceId,
        status: 'paid',
        amount_tzs: 2000,
        refunded_at: '2026-01-15T09:10:00.000Z',
      },
      refund: { kind: 'refund', channel: 'mobile_money', amount_tzs: -2000, provider: 'by_hand' },
      grant: { username: login.username, revoked_at: '2026-01-15T09:10:00.000Z', revoke_reason: 'refunded' },
      disconnect: { status: 'disconnected', sessions: [{ acct_session_id: 'sess-r1', answer: 'ack' }] },
    });
    t.equal(listener.received.length, 1, 'one Disconnect-Request');
    t.equal(attrText(listener.received[0]!, 1), login.username, 'for the guest');

    t.match(await paymentsOf(app, purchase.invoiceId), [
      {
        kind: 'refund',
        amount_tzs: -2000,
        channel: 'mobile_money',
        event_id: `refund:${purchase.invoiceId}`,
      },
      { kind: 'sale', amount_tzs: 2000, channel: 'mobile_money' },
    ]);
    t.match(
      await authorize(app.app.deps, { username: login.username, check: () => true }),
      { decision: 'reject', reason: 'revoked' },
      'the login no longer works',
    );
    const poll = await jsonRequest(`${app.base}/api/v1/public/purchases/${purchase.invoiceId}`, {
      headers: { 'X-Purchase-Key': purchase.key },
    });
    t.match(poll, { status: 200, body: { data: { status: 'paid' } } }, 'the public status keeps its values');
    t.notOk('credentials' in (poll.body as { data: object }).data, 'and shows no credentials any more');

    const audit = await admin.get(`/api/v1/admin/audit?target_type=invoice&target_id=${purchase.invoiceId}`);
    t.match(audit.body.data, [
      {
        action: 'invoice.refund',
        actor: admin.email,
        reason: 'wrong plan bought; M-Pesa reversed',
        before: { refunded_at: null, grant: { revoked_at: null } },
        after: {
          refunded_at: '2026-01-15T09:10:00.000Z',
          grant: { revoke_reason: 'refunded' },
          refund: { amount_tzs: -2000 },
        },
      },
    ]);
    t.equal(audit.body.data.length, 1, 'one entry');
    t.notMatch(JSON.stringify(audit.body), login.password, 'no password in the trail');

    const invoices = (await admin.get('/api/v1/admin/invoices')).body.data;
    t.match(invoices, [{ id: purchase.invoiceId, refunded_at: '2026-01-15T09:10:00.000Z' }]);
    t.match((await admin.get('/api/v1/admin/guests')).body.data, [{ purchases: 1, spent_tzs: 0 }]);
    t.match((await admin.get('/api/v1/admin/grants')).body.data, [
      { invoice_id: purchase.invoiceId, refunded_at: '2026-01-15T09:10:00.000Z', live: false },
    ]);

    const after = await everything(app);
    t.match(await admin.post(url, { reason: 'again' }), {
      status: 409,
      body: { message: 'the invoice is already refunded' },
    });
    t.match(
      await admin.post(`/api/v1/admin/invoices/${encodeURIComponent(purchase.invoiceNumber)}/refund`, {
        reason: 'by number',
      }),
      { status: 409, body: { message: 'the invoice is already refunded' } },
      'found by its number too',
    );
    t.same(await everything(app), after, 'a second refund changes nothing');
  },
);

t.test('only a paid sale that took money is refunded: cash and vouchers yes, the rest 409', async (t) => {
  const app = await startTestApp(t);
  const plan = await aPlan(app.app, { price_tzs: 1000 });
  const operator = await staffClient(app, 'operator');
  const admin = await staffClient(app, 'admin');

  const pending = await postPurchase(app.base, { plan_id: plan.id, phone: '0712000001' }, aPurchaseKey());
  const gift = (await operator.post('/api/v1/admin/grants', { plan_id: plan.id, channel: 'complimentary' }))
    .body.data;
  const before = await everything(app);
  t.match(
    await admin.post(`/api/v1/admin/invoices/${pending.body.data?.invoice_id ?? ''}/refund`, { reason: 'x' }),
    { status: 409, body: { message: 'only a paid invoice can be refunded' } },
  );
  t.match(await admin.post(`/api/v1/admin/invoices/${gift.invoice.id}/refund`, { reason: 'x' }), {
    status: 409,
    body: { message: 'a complimentary invoice took no money: revoke its access instead' },
  });
  t.same(await everything(app), before, 'refusals change nothing');

  const cash = (
    await operator.post('/api/v1/admin/grants', { plan_id: plan.id, channel: 'cash', amount_tzs: 700 })
  ).body.data;
  const refunded = await admin.post(`/api/v1/admin/invoices/${cash.invoice.id}/refund`, {
    reason: 'cash given back',
  });
  t.match(refunded, {
    status: 200,
    body: {
      data: {
        refund: { channel: 'cash', amount_tzs: -700 },
        grant: { revoked_at: String },
        disconnect: { status: 'no_sessions', sessions: [] },
      },
    },
  });

  const batch = (await admin.post('/api/v1/admin/vouchers', { plan_id: plan.id, count: 1 })).body.data;
  const redeemed = await jsonRequest(`${app.base}/api/v1/public/vouchers/redeem`, {
    method: 'POST',
    body: { code: batch.codes[0].code },
  });
  t.equal(redeemed.status, 200);
  const voucherInvoice = await app.app.deps.db
    .selectFrom('invoices')
    .select('id')
    .where('channel', '=', 'voucher')
    .executeTakeFirstOrThrow();
  t.match(
    await admin.post(`/api/v1/admin/invoices/${voucherInvoice.id}/refund`, { reason: 'card did not work' }),
    { status: 200, body: { data: { refund: { channel: 'voucher', amount_tzs: -1000 } } } },
  );

  t.same((await operator.get('/api/v1/admin/overview')).body.data.today, {
    since: '2026-01-14T21:00:00.000Z',
    timezone: 'Africa/Dar_es_Salaam',
    sales: 3,
    revenue_tzs: 0,
    refunds: 2,
    refunded_tzs: 1700,
    by_channel: {
      mobile_money: { sales: 0, revenue_tzs: 0, refunds: 0, refunded_tzs: 0 },
      voucher: { sales: 1, revenue_tzs: 0, refunds: 1, refunded_tzs: 1000 },
      cash: { sales: 1, revenue_tzs: 0, refunds: 1, refunded_tzs: 700 },
      complimentary: { sales: 1, revenue_tzs: 0, refunds: 0, refunded_tzs: 0 },
    },
  });
});

t.test('a refund asked for several times at once is made once', async (t) => {
  const app = await startTestApp(t);
  const admin = await staffClient(app, 'admin');
  const purchase = await aPaidPurchase(app, await aPlan(app.app, { price_tzs: 1500 }));
  const url = `/api/v1/admin/invoices/${purchase.invoiceId}/refund`;
  const answers = await Promise.all(
    Array.from({ length: 4 }, (_, i) => admin.post(url, { reason: `double click ${String(i)}` })),
  );
  t.same(
    answers.map((a) => a.status).sort(),
    [200, 409, 409, 409],
    JSON.stringify(answers.map((a) => a.body)),
  );
  for (const a of answers.filter((a) => a.status === 409))
    t.equal(a.body.message, 'the invoice is already refunded');
  t.match(await paymentsOf(app, purchase.invoiceId), [
    { kind: 'refund', amount_tzs: -1500 },
    { kind: 'sale' },
  ]);
  t.equal((await paymentsOf(app, purchase.invoiceId)).length, 2, 'one refund row');
  const entries = await app.app.deps.db
    .selectFrom('wifi_audit')
    .select('action')
    .where('action', '=', 'invoice.refund')
    .execute();
  t.equal(entries.length, 1, 'one audit entry');
});

t.test('a staff member limited to a site cannot refund another site’s sale', async (t) => {
  const app = await startTestApp(t);
  const purchase = await aPaidPurchase(app, await aPlan(app.app, { price_tzs: 1000 }));
  await aSite(app.app, { slug: 'harbour', name: 'Harbour' });
  const harbour = await staffClient(app, 'admin', ['harbour']);
  const before = await everything(app);
  t.match(await harbour.post(`/api/v1/admin/invoices/${purchase.invoiceId}/refund`, { reason: 'x' }), {
    status: 404,
    body: { message: 'invoice not found' },
  });
  t.same(await everything(app), before);
});
