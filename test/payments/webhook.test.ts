import t from 'tap';
import { sha256Hex } from '../../src/lib/crypto.js';
import { readOutbox } from '../../src/notify/index.js';
import { signWebhook } from '../../src/payments/index.js';
import { expireInvoices, findLiveForPurchase, revoke } from '../../src/wifi/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { jsonRequest, rawRequest } from '../helpers/http.js';
import {
  aPaidPurchase,
  aPlan,
  aPurchaseKey,
  postPurchase,
  postSandboxEvent,
  succeeded,
  wifiRows,
} from '../helpers/wifi.js';

async function pendingPurchase(t: TestApp, key = aPurchaseKey()) {
  const plan = await aPlan(t.app);
  const res = await postPurchase(t.base, { plan_id: plan.id, phone: '0712345678' }, key);
  return { plan, key, ...res.body.data! };
}

const poll = (t: TestApp, id: string, key?: string) =>
  jsonRequest(`${t.base}/api/v1/public/purchases/${id}`, key ? { headers: { 'X-Purchase-Key': key } } : {});

t.test('a signed payment settles the invoice, issues the grant and texts the credentials', async (t) => {
  const app = await startTestApp(t);
  const p = await pendingPurchase(app);
  app.clock.advance('2m');
  const res = await postSandboxEvent(app, succeeded(p.invoice_number, 1000, 'evt_01'));
  t.equal(res.status, 200);
  t.same(res.json(), { data: { event_id: 'evt_01', outcome: 'paid' } });

  const rows = await wifiRows(app.app.deps.db);
  t.match(rows.invoices, [
    { id: p.invoice_id, status: 'paid', paid_at: '2026-01-15T09:02:00.000Z', provider_reference: 'MP123ABC' },
  ]);
  t.match(rows.grants, [
    {
      invoice_id: p.invoice_id,
      issued_at: '2026-01-15T09:02:00.000Z',
      expires_at: '2026-01-15T10:02:00.000Z',
      revoked_at: null,
    },
  ]);
  t.match(rows.payments, [
    {
      invoice_id: p.invoice_id,
      provider: 'sandbox',
      provider_reference: 'MP123ABC',
      amount_tzs: 1000,
      event_id: 'evt_01',
      phone: '+255712345678',
    },
  ]);
  t.match(rows.payment_events, [
    { provider: 'sandbox', event_id: 'evt_01', type: 'payment.succeeded', outcome: 'paid' },
  ]);

  const withKey = await poll(app, p.invoice_id, p.key);
  const live = await findLiveForPurchase(app.app.deps, p.invoice_id, sha256Hex(p.key));
  if (live.kind !== 'live') throw new Error(live.kind);
  const basic = {
    invoice_id: p.invoice_id,
    invoice_number: p.invoice_number,
    status: 'paid',
    amount_tzs: 1000,
    plan_id: p.plan.id,
  };
  t.same(withKey.body, {
    data: {
      ...basic,
      credentials: {
        username: live.grant.username,
        password: live.password,
        expires_at: '2026-01-15T10:02:00.000Z',
      },
    },
  });
  t.equal(withKey.headers.get('cache-control'), 'no-store', 'the password is never cached on the way');
  t.same(
    (await poll(app, p.invoice_id, 'wrong-key-0123456789')).body,
    { data: basic },
    'a wrong key sees the basic status',
  );

  t.same(await readOutbox(app.dataDir), [
    {
      channel: 'sms',
      to: '+255712345678',
      text: `Hotspot Wi-Fi: username ${live.grant.username} password ${live.password}, valid 1h. Invoice ${p.invoice_number}.`,
      sender_id: 'Hotspot',
      created_at: '2026-01-15T09:02:00.000Z',
    },
  ]);
  const logText = app.logs.raw.join('\n');
  for (const secret of [live.password, p.key, app.config.paymentWebhookSecret])
    t.notMatch(logText, secret, 'no password, purchase key or webhook secret in the logs');
});

t.test('a repeated event is acknowledged and changes nothing', async (t) => {
  const app = await startTestApp(t);
  const p = await pendingPurchase(app);
  const event = succeeded(p.invoice_number, 1000, 'evt_once');
  t.equal((await postSandboxEvent(app, event)).status, 200);
  const before = await wifiRows(app.app.deps.db);
  app.clock.advance('1h');
  const replay = await postSandboxEvent(app, event, { headers: { 'x-webhook-id': 'evt_once' } });
  t.equal(replay.status, 200);
  t.same(replay.json(), { data: { event_id: 'evt_once', outcome: 'duplicate' } });
  t.same(await wifiRows(app.app.deps.db), before);
  t.equal((await readOutbox(app.dataDir)).length, 1, 'one SMS');

  const another = await postSandboxEvent(app, succeeded(p.invoice_number, 1000, 'evt_second'));
  t.same(
    another.json(),
    { data: { event_id: 'evt_second', outcome: 'already_paid' } },
    'a second success does not pay twice',
  );
  const after = await wifiRows(app.app.deps.db);
  t.same(after.grants, before.grants);
  t.same(after.payments, before.payments);
});

t.test('forged, tampered and stale events are 401 and change nothing', async (t) => {
  const app = await startTestApp(t);
  const p = await pendingPurchase(app);
  const before = await wifiRows(app.app.deps.db);
  const body = JSON.stringify(succeeded(p.invoice_number, 1000));
  const timestamp = String(Math.floor(app.clock.now().getTime() / 1000));
  const url = `${app.base}/webhooks/sandbox`;
  const bad = 'invalid webhook signature';
  const cases: [string, Promise<Awaited<ReturnType<typeof rawRequest>>>, string][] = [
    ['no signature headers', rawRequest(url, { method: 'POST', body }), bad],
    ['another secret', postSandboxEvent(app, body, { secret: 'not-the-secret' }), bad],
    [
      'body changed after signing',
      rawRequest(url, {
        method: 'POST',
        headers: {
          'x-webhook-timestamp': timestamp,
          'x-webhook-signature': signWebhook(app.config.paymentWebhookSecret, timestamp, body),
        },
        body: body.replace('1000', '10'),
      }),
      bad,
    ],
    [
      'a signature from 6 minutes ago',
      postSandboxEvent(app, body, { timestamp: String(Number(timestamp) - 360) }),
      'webhook timestamp outside the allowed window',
    ],
  ];
  for (const [name, request, message] of cases) {
    const res = await request;
    t.equal(res.status, 401, name);
    t.same(res.json(), { message }, name);
  }
  t.same(await wifiRows(app.app.deps.db), before);
  t.match(app.logs.events('payments.webhook_rejected'), [{ status: 401, reason: 'badSignature' }]);
});

t.test('several signatures in one header: any valid one passes (secret rotation)', async (t) => {
  const app = await startTestApp(t);
  const p = await pendingPurchase(app);
  const body = JSON.stringify(succeeded(p.invoice_number, 1000));
  const ts = String(Math.floor(app.clock.now().getTime() / 1000));
  const res = await rawRequest(`${app.base}/webhooks/sandbox`, {
    method: 'POST',
    headers: {
      'x-webhook-timestamp': ts,
      'x-webhook-signature': `${signWebhook('old-secret', ts, body)} ${signWebhook(app.config.paymentWebhookSecret, ts, body)}`,
    },
    body,
  });
  t.equal(res.status, 200);
});

t.test('signed but unusable payloads are 400 and change nothing', async (t) => {
  const app = await startTestApp(t);
  const p = await pendingPurchase(app);
  const before = await wifiRows(app.app.deps.db);
  const good = succeeded(p.invoice_number, 1000);
  for (const body of [
    '{not json',
    '[]',
    JSON.stringify({ ...good, type: 'payment.refunded' }),
    JSON.stringify({ ...good, id: '' }),
    JSON.stringify({ ...good, data: { ...good.data, amount_tzs: '1000' } }),
    JSON.stringify({ ...good, data: { ...good.data, invoice_number: undefined } }),
    JSON.stringify({ id: 'evt', type: 'payment.succeeded' }),
  ]) {
    const res = await postSandboxEvent(app, body);
    t.equal(res.status, 400, body);
    t.same(res.json(), { message: 'invalid payment event' });
  }
  const mismatch = await postSandboxEvent(app, good, { headers: { 'x-webhook-id': 'evt_other' } });
  t.equal(mismatch.status, 400);
  t.same(mismatch.json(), { message: 'x-webhook-id does not match the event id' });
  t.same(await wifiRows(app.app.deps.db), before);
});

t.test('an event for an unknown invoice or another amount is 422 and changes nothing', async (t) => {
  const app = await startTestApp(t);
  const p = await pendingPurchase(app);
  const before = await wifiRows(app.app.deps.db);
  const unknown = await postSandboxEvent(app, succeeded('HS-999999-AAAAAAAA', 1000, 'evt_x'));
  t.equal(unknown.status, 422);
  t.same(unknown.json(), { message: 'no invoice with this number' });
  const amount = await postSandboxEvent(app, succeeded(p.invoice_number, 999, 'evt_x'));
  t.equal(amount.status, 422);
  t.same(amount.json(), { message: 'amount does not match the invoice' });
  t.same(await wifiRows(app.app.deps.db), before);
  const fixed = await postSandboxEvent(app, succeeded(p.invoice_number, 1000, 'evt_x'));
  t.equal(fixed.status, 200, 'a refused event id was not recorded, so its corrected retry counts');
});

t.test('payment.failed marks a pending invoice failed; the key then starts a new invoice', async (t) => {
  const app = await startTestApp(t);
  const p = await pendingPurchase(app);
  const failed = await postSandboxEvent(app, {
    id: 'evt_fail',
    type: 'payment.failed',
    data: { invoice_number: p.invoice_number },
  });
  t.same(failed.json(), { data: { event_id: 'evt_fail', outcome: 'failed' } });
  t.match((await poll(app, p.invoice_id)).body, { data: { status: 'failed' } });
  const retry = await postPurchase(app.base, { plan_id: p.plan.id, phone: '0712345678' }, p.key);
  t.equal(retry.status, 201);
  t.not(retry.body.data?.invoice_id, p.invoice_id);
  t.equal((await readOutbox(app.dataDir)).length, 0, 'no SMS for a failure');

  const paid = await aPaidPurchase(app);
  const late = await postSandboxEvent(app, {
    id: 'evt_fail2',
    type: 'payment.failed',
    data: { invoice_number: paid.invoiceNumber, amount_tzs: 1000 },
  });
  t.same(
    late.json(),
    { data: { event_id: 'evt_fail2', outcome: 'ignored' } },
    'a failure cannot undo a payment',
  );
  t.match((await poll(app, paid.invoiceId)).body, { data: { status: 'paid' } });
});

t.test('a payment that arrives after the invoice expired is honoured', async (t) => {
  const app = await startTestApp(t);
  const p = await pendingPurchase(app);
  app.clock.advance('20m');
  await expireInvoices(app.app.deps);
  t.match((await poll(app, p.invoice_id)).body, { data: { status: 'expired' } });
  const res = await postSandboxEvent(app, succeeded(p.invoice_number, 1000));
  t.match(res.json(), { data: { outcome: 'paid' } });
  const after = await poll(app, p.invoice_id, p.key);
  t.match(after.body, { data: { status: 'paid', credentials: { expires_at: '2026-01-15T10:20:00.000Z' } } });
});

t.test('credentials disappear from the poll after expiry and after revocation', async (t) => {
  const app = await startTestApp(t);
  const a = await aPaidPurchase(app);
  const b = await aPaidPurchase(app, a.plan);
  t.ok(((await poll(app, a.invoiceId, a.key)).body as { data: { credentials?: unknown } }).data.credentials);
  const grantB = await app.app.deps.db
    .selectFrom('grants')
    .select('id')
    .where('invoice_id', '=', b.invoiceId)
    .executeTakeFirstOrThrow();
  await revoke(app.app.deps, grantB.id, 'staff');
  const basic = (id: string, number: string) => ({
    data: { invoice_id: id, invoice_number: number, status: 'paid', amount_tzs: 1000, plan_id: a.plan.id },
  });
  t.same((await poll(app, b.invoiceId, b.key)).body, basic(b.invoiceId, b.invoiceNumber), 'revoked');
  app.clock.advance('1h');
  t.same((await poll(app, a.invoiceId, a.key)).body, basic(a.invoiceId, a.invoiceNumber), 'expired');
});

t.test('a webhook for another provider is 404; a transient failure is a 5xx', async (t) => {
  const app = await startTestApp(t);
  const p = await pendingPurchase(app);
  const other = await rawRequest(`${app.base}/webhooks/selcom`, { method: 'POST', body: '{}' });
  t.equal(other.status, 404);
  t.same(other.json(), { message: 'unknown payment provider' });
  await app.app.deps.db.destroy();
  const res = await postSandboxEvent(app, succeeded(p.invoice_number, 1000));
  t.equal(res.status, 500, 'the provider will retry');
  t.same(res.json(), { message: 'internal server error' });
});

t.test(
  'a failure part-way through settlement leaves nothing behind and is a 5xx; the retry pays',
  async (t) => {
    const app = await startTestApp(t);
    const p = await pendingPurchase(app);
    const before = await wifiRows(app.app.deps.db);
    const { vault } = app.app.deps;
    const seal = vault.seal.bind(vault);
    // Sealing the grant's password runs after the invoice row was marked paid, inside the
    // transaction: a failure there must take the invoice update with it.
    vault.seal = () => {
      throw new Error('disk full');
    };
    const failed = await postSandboxEvent(app, succeeded(p.invoice_number, 1000, 'evt_retry'));
    t.equal(failed.status, 500, 'the provider will retry');
    t.same(await wifiRows(app.app.deps.db), before, 'invoice, grant, payment and event all rolled back');
    t.same(await readOutbox(app.dataDir), [], 'no credentials were texted');
    vault.seal = seal;
    const retry = await postSandboxEvent(app, succeeded(p.invoice_number, 1000, 'evt_retry'));
    t.same([retry.status, retry.json()], [200, { data: { event_id: 'evt_retry', outcome: 'paid' } }]);
    t.match((await wifiRows(app.app.deps.db)).invoices, [{ status: 'paid' }]);
  },
);

t.test('the same event delivered twice at once settles once', async (t) => {
  const app = await startTestApp(t);
  const p = await pendingPurchase(app);
  const event = succeeded(p.invoice_number, 1000, 'evt_twice');
  const answers = await Promise.all([postSandboxEvent(app, event), postSandboxEvent(app, event)]);
  t.same(
    answers.map((r) => r.status),
    [200, 200],
  );
  t.same(answers.map((r) => (r.json() as { data: { outcome: string } }).data.outcome).sort(), [
    'duplicate',
    'paid',
  ]);
  const rows = await wifiRows(app.app.deps.db);
  t.equal(rows.grants?.length, 1, 'one grant');
  t.equal(rows.payments?.length, 1, 'one payment');
  t.equal((await readOutbox(app.dataDir)).length, 1, 'one SMS');
});
