import t, { type Test } from 'tap';
import { buildApp } from '../../src/app.js';
import { ConfigError } from '../../src/config/index.js';
import { readOutbox } from '../../src/notify/index.js';
import { expireInvoices, reconcilePayments } from '../../src/wifi/index.js';
import { startTestApp, testConfig, waitFor, type TestApp } from '../helpers/app.js';
import { jsonRequest, rawRequest } from '../helpers/http.js';
import { SELCOM_KEY, SELCOM_SECRET, selcomCallback, startSelcomFake } from '../helpers/selcom-fake.js';
import { staffClient } from '../helpers/staff.js';
import { aPlan, aPurchaseKey, postPurchase, wifiRows } from '../helpers/wifi.js';

async function selcomApp(t: Test, baseUrl: string): Promise<TestApp> {
  return startTestApp(t, {
    env: {
      PAYMENT_PROVIDER: 'selcom',
      SELCOM_BASE_URL: baseUrl,
      SELCOM_API_KEY: SELCOM_KEY,
      SELCOM_API_SECRET: SELCOM_SECRET,
      SELCOM_VENDOR: 'TILL61000',
      PUBLIC_BASE_URL: 'https://wifi.venue.example',
      MAIL_FROM: 'Venue Wi-Fi <wifi@venue.example>',
    },
  });
}

async function fixture(t: Test) {
  const fake = await startSelcomFake();
  t.teardown(fake.close);
  const app = await selcomApp(t, fake.baseUrl);
  const plan = await aPlan(app.app);
  return { fake, app, plan };
}

const postCallback = (app: TestApp, cb: { headers: Record<string, string>; body: string }) =>
  rawRequest(`${app.base}/webhooks/selcom`, { method: 'POST', headers: cb.headers, body: cb.body });

t.test('a purchase creates a signed Selcom order and a USSD push to the guest', async (t) => {
  const { fake, app, plan } = await fixture(t);
  const res = await postPurchase(app.base, { plan_id: plan.id, phone: '0712345678' });
  t.equal(res.status, 201);
  const number = res.body.data!.invoice_number;
  t.match(fake.requests, [
    {
      method: 'POST',
      path: '/v1/checkout/create-order-minimal',
      authentic: true,
      fields: {
        vendor: 'TILL61000',
        order_id: number,
        buyer_email: 'wifi@venue.example',
        buyer_name: 'Hotspot guest',
        buyer_phone: '255712345678',
        amount: 1000,
        currency: 'TZS',
        no_of_items: 1,
      },
      headers: { timestamp: '2026-01-15T09:00:00+00:00' },
    },
    {
      method: 'POST',
      path: '/v1/checkout/wallet-payment',
      authentic: true,
      fields: { transid: number, order_id: number, msisdn: '255712345678' },
    },
  ]);
  t.equal(fake.orders.get(number)?.webhook, 'https://wifi.venue.example/webhooks/selcom');
  t.match((await wifiRows(app.app.deps.db)).invoices, [
    { number, provider: 'selcom', provider_reference: '0289999288', status: 'pending' },
  ]);
});

t.test('a refusal or an unreachable Selcom is a 502; the invoice fails and the key can retry', async (t) => {
  const { fake, app, plan } = await fixture(t);
  const key = aPurchaseKey();
  const body = { plan_id: plan.id, phone: '0712345678' };
  fake.state.mode = 'refuse';
  const refused = await postPurchase(app.base, body, key);
  t.equal(refused.status, 502);
  t.same(refused.body, { message: 'the payment provider refused the payment request' });
  t.match((await wifiRows(app.app.deps.db)).invoices, [
    { status: 'failed', failure_reason: /refused: HTTP 200 resultcode 403/ },
  ]);

  const viewer = await staffClient(app, 'viewer');
  const provider = async () =>
    ((await viewer.get('/api/v1/admin/portal/config')).body.data as { payment_provider: unknown })
      .payment_provider;
  t.same(await provider(), { name: 'selcom', ready: true, sandbox: false }, 'a refusal is an answer: ready');

  fake.state.mode = 'error500';
  const down = await postPurchase(app.base, body, key);
  t.equal(down.status, 502);
  t.same(down.body, { message: 'the payment provider could not be reached' });
  t.same(await provider(), { name: 'selcom', ready: false, reason: 'unreachable', sandbox: false });

  fake.state.mode = 'ok';
  const retry = await postPurchase(app.base, body, key);
  t.equal(retry.status, 201, 'the same key starts a fresh invoice once the provider answers');
  t.same(await provider(), { name: 'selcom', ready: true, sandbox: false }, 'ready again');
  const invoices = (await wifiRows(app.app.deps.db)).invoices as { status: string }[];
  t.same(
    invoices.map((i) => i.status),
    ['failed', 'failed', 'pending'],
  );
  t.equal((await postPurchase(app.base, body, key)).status, 200, 'and then replays it');
  t.match(app.logs.events('selcom.call_failed'), [
    { path: '/checkout/create-order-minimal', reason: 'refused' },
    { path: '/checkout/create-order-minimal', reason: 'unreachable', detail: 'HTTP 500' },
  ]);
  t.notMatch(app.logs.raw.join('\n'), SELCOM_SECRET, 'the API secret is never logged');
});

t.test('a push Selcom never answers is a 502 before the request timeout, not a 503', async (t) => {
  const { fake, app, plan } = await fixture(t);
  fake.state.mode = 'pushHangs';
  let answered = false;
  const pending = postPurchase(app.base, { plan_id: plan.id, phone: '0712345678' }).finally(
    () => (answered = true),
  );
  await waitFor(() => fake.requests.some((r) => r.path === '/v1/checkout/wallet-payment'), 'the push');
  app.clock.advance('24s');
  // An abort would fail the fetch within a few turns, without a network round trip.
  for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
  t.notOk(answered, 'still waiting for the push at 24 s');
  t.same(app.logs.events('selcom.call_failed'), [], 'no call has given up');
  t.match((await wifiRows(app.app.deps.db)).invoices, [{ status: 'pending' }]);
  app.clock.advance('1s'); // 25 s: the prompt's deadline, inside the request's 30 s
  const res = await pending;
  t.equal(res.status, 502);
  t.same(res.body, { message: 'the payment provider could not be reached' });
  t.match((await wifiRows(app.app.deps.db)).invoices, [
    { status: 'failed', failure_reason: /unreachable: no answer within 25 s/ },
  ]);
  t.equal(app.logs.events('http.timeout').length, 0);
});

t.test('a Selcom that cannot be reached at all is a 502', async (t) => {
  const fake = await startSelcomFake();
  const closedUrl = fake.baseUrl;
  await fake.close();
  const app = await selcomApp(t, closedUrl);
  const plan = await aPlan(app.app);
  const res = await postPurchase(app.base, { plan_id: plan.id, phone: '0712345678' });
  t.equal(res.status, 502);
  t.same(res.body, { message: 'the payment provider could not be reached' });
  t.match((await wifiRows(app.app.deps.db)).invoices, [{ status: 'failed', failure_reason: /unreachable/ }]);
});

t.test('a signed Selcom callback pays the invoice; forged ones are 401', async (t) => {
  const { app, plan } = await fixture(t);
  const key = aPurchaseKey();
  const data = (await postPurchase(app.base, { plan_id: plan.id, phone: '0712345678' }, key)).body.data!;
  const paid = {
    transid: data.invoice_number,
    order_id: data.invoice_number,
    reference: '0281121212',
    result: 'SUCCESS',
    resultcode: '000',
    payment_status: 'COMPLETED',
  };
  const before = await wifiRows(app.app.deps.db);
  for (const [name, cb] of [
    ['another secret', selcomCallback(paid, { secret: 'guess' })],
    ['another API key', selcomCallback(paid, { key: 'other-key' })],
    [
      'payment_status not signed',
      selcomCallback(paid, { signedFields: ['transid', 'order_id', 'reference'] }),
    ],
    [
      'body changed',
      { ...selcomCallback({ ...paid, payment_status: 'PENDING' }), body: JSON.stringify(paid) },
    ],
  ] as const) {
    const res = await postCallback(app, cb);
    t.equal(res.status, 401, name);
    t.same(res.json(), { message: 'invalid webhook signature' }, name);
  }
  t.same(await wifiRows(app.app.deps.db), before);

  const progress = await postCallback(
    app,
    selcomCallback({ ...paid, payment_status: 'PENDING', result: 'PENDING', resultcode: '111' }),
  );
  t.same(
    progress.json(),
    { data: { event_id: null, outcome: 'ignored' } },
    'an in-progress notice is acknowledged',
  );
  const ok = await postCallback(app, selcomCallback(paid));
  t.equal(ok.status, 200);
  t.same(ok.json(), { data: { event_id: `${data.invoice_number}:COMPLETED:0281121212`, outcome: 'paid' } });
  t.match(
    (
      await jsonRequest(`${app.base}/api/v1/public/purchases/${data.invoice_id}`, {
        headers: { 'X-Purchase-Key': key },
      })
    ).body,
    {
      data: { status: 'paid', credentials: { username: /^[a-z2-9]{8}$/ } },
    },
  );
  const again = await postCallback(app, selcomCallback(paid));
  t.match(again.json(), { data: { outcome: 'duplicate' } });
  const unknown = await postCallback(app, selcomCallback({ ...paid, order_id: 'HS-999999-ZZZZZZZZ' }));
  t.equal(unknown.status, 422);
});

t.test('the poll job settles what Selcom reports when no callback arrives', async (t) => {
  const { fake, app, plan } = await fixture(t);
  const paidOne = (await postPurchase(app.base, { plan_id: plan.id, phone: '0712345678' })).body.data!;
  const failedOne = (await postPurchase(app.base, { plan_id: plan.id, phone: '0787654321' })).body.data!;
  const waiting = (await postPurchase(app.base, { plan_id: plan.id, phone: '0755555555' })).body.data!;
  Object.assign(fake.orders.get(paidOne.invoice_number)!, {
    payment_status: 'COMPLETED',
    reference: '0281121212',
  });
  Object.assign(fake.orders.get(failedOne.invoice_number)!, { payment_status: 'USERCANCELLED' });

  t.same(await reconcilePayments(app.app.deps), { checked: 0, settled: 0 }, 'a callback gets 30 s first');
  app.clock.advance('30s');
  t.same(await reconcilePayments(app.app.deps), { checked: 3, settled: 2 });
  const statusRequests = fake.requests.filter((r) => r.path === '/v1/checkout/order-status');
  t.ok(
    statusRequests.every((r) => r.authentic && r.method === 'GET'),
    'signed GETs',
  );
  t.match((await wifiRows(app.app.deps.db)).invoices, [
    { id: paidOne.invoice_id, status: 'paid', provider_reference: '0281121212' },
    { id: failedOne.invoice_id, status: 'failed' },
    { id: waiting.invoice_id, status: 'pending' },
  ]);
  t.match(await readOutbox(app.dataDir), [
    { channel: 'sms', to: '+255712345678', text: /username [a-z2-9]{8} password/ },
  ]);

  const cb = selcomCallback({
    transid: paidOne.invoice_number,
    order_id: paidOne.invoice_number,
    reference: '0281121212',
    result: 'SUCCESS',
    resultcode: '000',
    payment_status: 'COMPLETED',
  });
  t.match(
    (await postCallback(app, cb)).json(),
    { data: { outcome: 'duplicate' } },
    'the late callback is the same event',
  );

  app.clock.advance('16m');
  t.equal(await expireInvoices(app.app.deps), 1);
  Object.assign(fake.orders.get(waiting.invoice_number)!, {
    payment_status: 'COMPLETED',
    reference: '0281999999',
  });
  await reconcilePayments(app.app.deps);
  t.match(
    (await wifiRows(app.app.deps.db)).invoices,
    [{}, {}, { id: waiting.invoice_id, status: 'paid' }],
    'an expired invoice the guest paid late is still polled and honoured',
  );
});

t.test(
  'a prompt whose answer was lost is still polled, so a guest who paid gets access without a callback',
  async (t) => {
    const { fake, app, plan } = await fixture(t);
    fake.state.mode = 'refuse';
    t.equal((await postPurchase(app.base, { plan_id: plan.id, phone: '0787654321' })).status, 502);
    fake.state.mode = 'pushLost';
    const res = await postPurchase(app.base, { plan_id: plan.id, phone: '0712345678' });
    t.equal(res.status, 502);
    const invoices = (await wifiRows(app.app.deps.db)).invoices as { id: string; number: string }[];
    t.match(invoices, [
      { status: 'failed', failure_reason: /^payment prompt refused: / },
      { status: 'failed', failure_reason: /^payment prompt unreachable: HTTP 504/ },
    ]);
    const lost = invoices[1]!;
    Object.assign(fake.orders.get(lost.number)!, { payment_status: 'COMPLETED', reference: '0281777777' });
    app.clock.advance('30s');
    t.same(
      await reconcilePayments(app.app.deps),
      { checked: 1, settled: 1 },
      'a refused prompt is not polled',
    );
    t.match((await wifiRows(app.app.deps.db)).invoices, [
      { status: 'failed' },
      { id: lost.id, status: 'paid', provider_reference: '0281777777', failure_reason: null },
    ]);
    t.match(await readOutbox(app.dataDir), [
      { channel: 'sms', to: '+255712345678', text: /username [a-z2-9]{8}/ },
    ]);
  },
);

t.test('abandoned invoices cannot crowd a fresh one out of the poll batch', async (t) => {
  const { fake, app, plan } = await fixture(t);
  for (let i = 0; i < 50; i++)
    t.equal((await postPurchase(app.base, { plan_id: plan.id, phone: '0712345678' })).status, 201);
  app.clock.advance('16m');
  t.equal(await expireInvoices(app.app.deps), 50);
  const fresh = (await postPurchase(app.base, { plan_id: plan.id, phone: '0755555555' })).body.data!;
  Object.assign(fake.orders.get(fresh.invoice_number)!, {
    payment_status: 'COMPLETED',
    reference: '0281888888',
  });
  app.clock.advance('30s');
  t.same(await reconcilePayments(app.app.deps), { checked: 50, settled: 1 });
  const row = await app.app.deps.db
    .selectFrom('invoices')
    .select('status')
    .where('id', '=', fresh.invoice_id)
    .executeTakeFirstOrThrow();
  t.equal(row.status, 'paid');
});

t.test(
  'PAYMENT_PROVIDER=selcom without its credentials stops start-up, naming what is missing',
  async (t) => {
    // The configuration check refuses it (as `serve` and `setup` do), before buildApp would.
    const err = await Promise.resolve()
      .then(() => buildApp(testConfig(t.testdir(), { PAYMENT_PROVIDER: 'selcom', SELCOM_API_KEY: 'k' })))
      .catch((e: unknown) => e);
    t.ok(err instanceof ConfigError);
    t.same((err as ConfigError).problems, [
      'SELCOM_API_SECRET: must be set when PAYMENT_PROVIDER is selcom',
      'SELCOM_VENDOR: must be set when PAYMENT_PROVIDER is selcom',
    ]);
  },
);
