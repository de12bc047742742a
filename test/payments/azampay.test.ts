import t, { type Test } from 'tap';
import { buildApp } from '../../src/app.js';
import { ConfigError } from '../../src/config/index.js';
import { readOutbox } from '../../src/notify/index.js';
import { azampayOperator, tokenLifetime } from '../../src/payments/index.js';
import { expireInvoices, reconcilePayments } from '../../src/wifi/index.js';
import { startTestApp, testConfig, waitFor, type TestApp } from '../helpers/app.js';
import {
  AZAMPAY_APP,
  AZAMPAY_CALLBACK_TOKEN,
  startAzamPayFake,
  type AzamPayFake,
} from '../helpers/azampay-fake.js';
import { jsonRequest, rawRequest } from '../helpers/http.js';
import { staffClient } from '../helpers/staff.js';
import { aPlan, aPurchaseKey, postPurchase, wifiRows } from '../helpers/wifi.js';

/** AzamPay as the only provider (PAYMENT_PROVIDER=azampay), against a local fake of its API. */

async function fixture(t: Test, env: Record<string, string> = {}) {
  const fake = await startAzamPayFake();
  t.teardown(fake.close);
  const app = await startTestApp(t, {
    env: {
      PAYMENT_PROVIDER: 'azampay',
      PUBLIC_BASE_URL: 'https://wifi.venue.example',
      ...fake.env(),
      ...env,
    },
  });
  const plan = await aPlan(app.app);
  return { fake, app, plan };
}

const postAzamPayCallback = (app: TestApp, body: unknown, token: string | null = AZAMPAY_CALLBACK_TOKEN) =>
  rawRequest(`${app.base}/webhooks/azampay${token === null ? '' : `/${token}`}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });

/** A purchase through the public API, and AzamPay's transaction for it. */
async function purchase(fake: AzamPayFake, app: TestApp, planId: string, phone = '0712345678') {
  const key = aPurchaseKey();
  const res = await postPurchase(app.base, { plan_id: planId, phone }, key);
  const data = res.body.data!;
  return { res, key, data, tx: fake.byExternalId(data.invoice_number)! };
}

t.test('the network of a Tanzanian number, for the MNO checkout', async (t) => {
  const cases: [string, string | null][] = [
    ['+255742000001', 'Mpesa'],
    ['+255754000001', 'Mpesa'],
    ['+255765000001', 'Mpesa'],
    ['+255652000001', 'Tigo'],
    ['+255672000001', 'Tigo'],
    ['+255712345678', 'Tigo'],
    ['+255772000001', 'Tigo'],
    ['+255682000001', 'Airtel'],
    ['+255692000001', 'Airtel'],
    ['+255787654321', 'Airtel'],
    ['+255612000001', 'Halopesa'],
    ['+255622000001', 'Halopesa'],
    ['+255732000001', null], // TTCL: no AzamPay checkout
    ['+255662000001', null], // Smile
    ['+254712345678', null], // Kenya
    ['+25571234567', null], // too short
  ];
  for (const [phone, operator] of cases) t.equal(azampayOperator(phone), operator, phone);
  // A number that moved networks keeps its prefix: the network the guest names wins.
  t.equal(azampayOperator('+255742000001', 'airtel'), 'Airtel', 'a Vodacom prefix ported to Airtel');
  t.equal(azampayOperator('+255732000001', 'halotel'), 'Halopesa', 'a TTCL prefix ported to Halotel');
  t.equal(azampayOperator('+255712345678', 'azampesa'), 'Azampesa');
  t.equal(azampayOperator('+255712345678', null), 'Tigo', 'none named: the prefix decides');
});

t.test(
  'a guest whose number moved networks names theirs: the checkout and the status query use it',
  async (t) => {
    const { fake, app, plan } = await fixture(t);
    const html = (await rawRequest(`${app.base}/portal`)).text;
    t.match(html, '<select id="network" name="network"', 'the portal asks, as AzamPay needs the network');
    for (const value of ['', 'vodacom', 'tigo', 'airtel', 'halotel', 'azampesa'])
      t.match(html, `<option value="${value}"`);

    const key = aPurchaseKey();
    const body = { plan_id: plan.id, phone: '0742000001', network: 'airtel' };
    const res = await postPurchase(app.base, body, key);
    t.equal(res.status, 201, JSON.stringify(res.body));
    const number = res.body.data?.invoice_number ?? '';
    t.match(fake.requests.at(-1), {
      path: '/checkout/azampay/mno/checkout',
      body: { accountNumber: '255742000001', externalId: number, provider: 'Airtel' },
    });
    t.match((await wifiRows(app.app.deps.db)).invoices, [{ number, network: 'airtel' }]);
    t.equal((await postPurchase(app.base, body, key)).status, 200, 'replayed with the same details');
    const other = await postPurchase(app.base, { ...body, network: 'vodacom' }, key);
    t.same(
      [other.status, other.body],
      [409, { message: 'Idempotency-Key was already used for a different purchase' }],
      'the same key with another network is another purchase',
    );
    t.equal((await postPurchase(app.base, { plan_id: plan.id, phone: '0742000001' }, key)).status, 409);

    // The poll asks AzamPay about the transaction on the network the guest named.
    const tx = fake.byExternalId(number);
    if (!tx) throw new Error('no AzamPay transaction');
    tx.status = 'success';
    app.clock.advance('30s'); // a callback gets 30 s first
    t.match(await reconcilePayments(app.app.deps), { settled: 1 });
    t.match(fake.requests.at(-1), {
      path: '/checkout/azampay/gettransactionstatus',
      query: { pgReferenceId: tx.transactionId, bankName: 'Airtel' },
    });
    t.match((await wifiRows(app.app.deps.db)).invoices, [{ number, status: 'paid' }]);

    // A network that is not one, or not a string, is refused and changes nothing.
    const before = await wifiRows(app.app.deps.db);
    for (const network of ['mpesa', 'AIRTEL', '', 7, ['airtel']]) {
      const bad = await postPurchase(app.base, { ...body, network });
      t.same(
        [bad.status, bad.body],
        [422, { message: 'invalid mobile-money network: vodacom, tigo, airtel, halotel or azampesa' }],
        JSON.stringify(network),
      );
    }
    t.same(await wifiRows(app.app.deps.db), before, 'nothing changed');
    // null is the same as leaving it out: the prefix decides.
    t.equal((await postPurchase(app.base, { ...body, phone: '0712345678', network: null })).status, 201);
    t.match(fake.requests.at(-1), { body: { provider: 'Tigo' } });
  },
);

t.test("a token's lifetime, however AzamPay words `expire`", async (t) => {
  const now = new Date('2026-01-15T09:00:00Z');
  t.equal(tokenLifetime('3600', now), 3600, 'seconds to live');
  t.equal(tokenLifetime(String(now.getTime() / 1000 + 1800), now), 1800, 'epoch seconds');
  t.equal(tokenLifetime(String(now.getTime() + 1_200_000), now), 1200, 'epoch milliseconds');
  t.equal(tokenLifetime('2026-01-15T10:00:00Z', now), 3600, 'a date');
  t.equal(tokenLifetime('2026-01-15T08:00:00Z', now), 60, 'already past: the shortest');
  t.equal(tokenLifetime('999999', now), 86_400, 'at most a day');
  t.equal(tokenLifetime(undefined, now), 3540, 'unreadable: just under an hour');
});

t.test('a purchase paid through AzamPay, end to end through the public API', async (t) => {
  const { fake, app, plan } = await fixture(t);
  const { res, key, data, tx } = await purchase(fake, app, plan.id);
  t.equal(res.status, 201);
  t.match(fake.requests, [
    {
      method: 'POST',
      path: '/auth/AppRegistration/GenerateToken',
      body: {
        appName: AZAMPAY_APP.appName,
        clientId: AZAMPAY_APP.clientId,
        clientSecret: AZAMPAY_APP.clientSecret,
      },
    },
    {
      method: 'POST',
      path: '/checkout/azampay/mno/checkout',
      app: AZAMPAY_APP.appName,
      headers: { 'x-api-key': AZAMPAY_APP.apiKey, 'content-type': 'application/json' },
      body: {
        accountNumber: '255712345678',
        amount: '1000',
        currency: 'TZS',
        externalId: data.invoice_number,
        provider: 'Tigo',
      },
    },
  ]);
  t.match((await wifiRows(app.app.deps.db)).invoices, [
    {
      number: data.invoice_number,
      provider: 'azampay',
      provider_reference: tx.transactionId,
      status: 'pending',
    },
  ]);

  // The guest enters the PIN; AzamPay calls back at the secret URL.
  tx.status = 'success';
  const callback = await postAzamPayCallback(app, fake.callbackBody(tx));
  t.equal(callback.status, 200);
  t.same(callback.json(), { data: { event_id: `${tx.transactionId}:paid`, outcome: 'paid' } });
  t.match(fake.requests.at(-1), {
    method: 'GET',
    path: '/checkout/azampay/gettransactionstatus',
    query: { pgReferenceId: tx.transactionId, bankName: 'Tigo' },
    app: AZAMPAY_APP.appName,
  });
  t.equal(
    fake.requests.filter((r) => r.path.endsWith('GenerateToken')).length,
    1,
    'the token is reused while it is fresh',
  );

  const poll = await jsonRequest(`${app.base}/api/v1/public/purchases/${data.invoice_id}`, {
    headers: { 'X-Purchase-Key': key },
  });
  t.match(poll.body, {
    data: { status: 'paid', credentials: { username: /^[a-z2-9]{8}$/, password: /\S/ } },
  });
  t.match((await wifiRows(app.app.deps.db)).payments, [
    { provider: 'azampay', provider_reference: tx.transactionId, amount_tzs: 1000 },
  ]);
  t.match(await readOutbox(app.dataDir), [
    { channel: 'sms', to: '+255712345678', text: /username [a-z2-9]{8} password/ },
  ]);
  const again = await postAzamPayCallback(app, fake.callbackBody(tx));
  t.same(again.json(), { data: { event_id: `${tx.transactionId}:paid`, outcome: 'duplicate' } });
  t.match(app.logs.events('payment.event'), [
    { provider: 'azampay', outcome: 'paid' },
    { outcome: 'duplicate' },
  ]);

  const raw = app.logs.raw.join('\n');
  for (const secret of [AZAMPAY_APP.clientSecret, AZAMPAY_APP.apiKey, AZAMPAY_CALLBACK_TOKEN])
    t.notMatch(raw, secret, 'no credential is ever logged');
});

t.test('a callback without the token, or with another, is refused and changes nothing', async (t) => {
  const { fake, app, plan } = await fixture(t);
  const { tx } = await purchase(fake, app, plan.id);
  tx.status = 'success';
  const before = await wifiRows(app.app.deps.db);
  const requestsBefore = fake.requests.length;
  for (const [name, token] of [
    ['no token', null],
    ['another token', 'cb_token_0123456789abcdefghijklmnopqrstuw'],
    ['a short one', 'x'],
  ] as const) {
    const res = await postAzamPayCallback(app, fake.callbackBody(tx), token);
    t.equal(res.status, 401, name);
    t.same(res.json(), { message: 'invalid webhook token' }, name);
  }
  t.equal(fake.requests.length, requestsBefore, 'AzamPay was not even asked');
  t.same(await wifiRows(app.app.deps.db), before);
  t.match(app.logs.events('payments.webhook_rejected'), [
    { status: 401, reason: 'badToken' },
    { status: 401, reason: 'badToken' },
    { status: 401, reason: 'badToken' },
  ]);

  const unknown = await postAzamPayCallback(app, {
    ...fake.callbackBody(tx),
    utilityref: 'HS-999999-ZZZZZZZZ',
  });
  t.same([unknown.status, unknown.json()], [422, { message: 'no invoice with this number' }]);
  const garbage = await postAzamPayCallback(app, { hello: 'world' });
  t.same([garbage.status, garbage.json()], [400, { message: 'invalid payment event' }]);
  t.same(await wifiRows(app.app.deps.db), before, 'still nothing changed');
  const sandbox = await rawRequest(`${app.base}/webhooks/sandbox/${AZAMPAY_CALLBACK_TOKEN}`, {
    method: 'POST',
    body: '{}',
  });
  t.equal(sandbox.status, 404, 'a provider that is not configured has no callback URL');
});

t.test('a callback is only a hint: what settles is our own status query', async (t) => {
  const { fake, app, plan } = await fixture(t);
  const { data, tx } = await purchase(fake, app, plan.id);

  // Says success, AzamPay says pending: nothing happens.
  const early = await postAzamPayCallback(app, fake.callbackBody(tx, 'success'));
  t.same([early.status, early.json()], [200, { data: { event_id: null, outcome: 'ignored' } }]);
  t.match((await wifiRows(app.app.deps.db)).invoices, [{ status: 'pending' }]);
  t.same((await wifiRows(app.app.deps.db)).grants, []);

  // Forged with a reference of its own: the query uses the transaction id our checkout got.
  const forged = await postAzamPayCallback(app, { ...fake.callbackBody(tx, 'success'), reference: 'forged' });
  t.same(forged.json(), { data: { event_id: null, outcome: 'ignored' } });
  t.equal(fake.requests.at(-1)?.query.pgReferenceId, tx.transactionId);

  // AzamPay cannot be asked: 503, so the caller tries again; nothing changed.
  fake.state.mode = 'statusDown';
  const down = await postAzamPayCallback(app, fake.callbackBody(tx, 'success'));
  t.same(
    [down.status, down.json()],
    [503, { message: 'the payment could not be confirmed with the provider' }],
  );
  t.match((await wifiRows(app.app.deps.db)).invoices, [{ status: 'pending' }]);
  t.match(app.logs.events('azampay.callback_unconfirmed'), [{ invoice_number: data.invoice_number }]);

  // It says failed and AzamPay agrees: the invoice fails.
  fake.state.mode = 'ok';
  tx.status = 'failed';
  const failed = await postAzamPayCallback(app, fake.callbackBody(tx, 'failed'));
  t.same(failed.json(), { data: { event_id: `${tx.transactionId}:failed`, outcome: 'failed' } });
  t.match((await wifiRows(app.app.deps.db)).invoices, [{ status: 'failed' }]);
  t.same((await wifiRows(app.app.deps.db)).grants, []);
});

t.test('the poll settles what AzamPay reports when no callback arrives', async (t) => {
  const { fake, app, plan } = await fixture(t);
  const paid = await purchase(fake, app, plan.id, '0712345678');
  const failed = await purchase(fake, app, plan.id, '0787654321');
  const waiting = await purchase(fake, app, plan.id, '0755555555');
  paid.tx.status = 'success';
  failed.tx.status = 'failed';
  t.same(await reconcilePayments(app.app.deps), { checked: 0, settled: 0 }, 'a callback gets 30 s first');
  app.clock.advance('30s');
  t.same(await reconcilePayments(app.app.deps), { checked: 3, settled: 2 });
  const asked = fake.requests
    .filter((r) => r.path.endsWith('gettransactionstatus'))
    .map((r) => [r.query.bankName, r.query.pgReferenceId])
    .sort();
  t.same(asked, [
    ['Airtel', failed.tx.transactionId],
    ['Mpesa', waiting.tx.transactionId],
    ['Tigo', paid.tx.transactionId],
  ]);
  const status = async (id: string) =>
    (
      await app.app.deps.db
        .selectFrom('invoices')
        .select('status')
        .where('id', '=', id)
        .executeTakeFirstOrThrow()
    ).status;
  t.equal(await status(paid.data.invoice_id), 'paid');
  t.equal(await status(failed.data.invoice_id), 'failed');
  t.equal(await status(waiting.data.invoice_id), 'pending');
  t.match(
    (await postAzamPayCallback(app, fake.callbackBody(paid.tx))).json(),
    { data: { outcome: 'duplicate' } },
    'the late callback is the same event',
  );

  app.clock.advance('16m');
  t.equal(await expireInvoices(app.app.deps), 1);
  waiting.tx.status = 'success';
  await reconcilePayments(app.app.deps);
  t.equal(await status(waiting.data.invoice_id), 'paid', 'a late payment is honoured');
});

t.test('refusals, an unknown network and an unreachable AzamPay are 502s', async (t) => {
  const { fake, app, plan } = await fixture(t);
  fake.state.mode = 'refuse';
  const refused = await postPurchase(app.base, { plan_id: plan.id, phone: '0712345678' });
  t.same(
    [refused.status, refused.body],
    [502, { message: 'the payment provider refused the payment request' }],
  );
  fake.state.mode = 'ok';
  const checkouts = () => fake.requests.filter((r) => r.path.endsWith('/mno/checkout')).length;
  const before = checkouts();
  const ttcl = await postPurchase(app.base, { plan_id: plan.id, phone: '0732000001' });
  t.equal(ttcl.status, 502);
  t.equal(checkouts(), before, 'no checkout for a number AzamPay cannot push to');
  fake.state.mode = 'error500';
  const down = await postPurchase(app.base, { plan_id: plan.id, phone: '0712345678' });
  t.same([down.status, down.body], [502, { message: 'the payment provider could not be reached' }]);
  t.match((await wifiRows(app.app.deps.db)).invoices, [
    { status: 'failed', failure_reason: /^payment prompt refused: HTTP 200 Wallet is not active/ },
    { status: 'failed', failure_reason: /^payment prompt refused: no AzamPay mobile-money network/ },
    { status: 'failed', failure_reason: /^payment prompt unreachable: HTTP 500/ },
  ]);
  const viewer = await staffClient(app, 'viewer');
  const config = (await viewer.get('/api/v1/admin/portal/config')).body.data as Record<string, unknown>;
  t.same(config.payment_provider, { name: 'azampay', ready: false, reason: 'unreachable', sandbox: false });
  t.match(config.endpoints, {
    payment_webhook: 'https://wifi.venue.example/webhooks/azampay/{AZAMPAY_CALLBACK_TOKEN}',
  });
  t.notMatch(JSON.stringify(config), AZAMPAY_CALLBACK_TOKEN, 'the secret URL is named, never shown');
});

t.test('credentials AzamPay refuses are a refusal (502), logged without the secret', async (t) => {
  const { app, plan } = await fixture(t, { AZAMPAY_CLIENT_SECRET: 'wrong-secret' });
  const refused = await postPurchase(app.base, { plan_id: plan.id, phone: '0712345678' });
  t.equal(refused.status, 502);
  t.match((await wifiRows(app.app.deps.db)).invoices, [
    { status: 'failed', failure_reason: /^payment prompt refused: HTTP 423 Provided detail is not valid/ },
  ]);
  t.match(app.logs.events('azampay.call_failed'), [
    { path: '/AppRegistration/GenerateToken', reason: 'refused' },
  ]);
  t.notMatch(app.logs.raw.join('\n'), 'wrong-secret');
});

t.test('a token is renewed before it expires, and again when AzamPay drops it early', async (t) => {
  const { fake, app, plan } = await fixture(t);
  const tokens = () => fake.requests.filter((r) => r.path.endsWith('GenerateToken')).length;
  t.equal((await postPurchase(app.base, { plan_id: plan.id, phone: '0712345678' })).status, 201);
  t.equal((await postPurchase(app.base, { plan_id: plan.id, phone: '0712345679' })).status, 201);
  t.equal(tokens(), 1);
  app.clock.advance('59m'); // within a minute of the hour: renewed
  t.equal((await postPurchase(app.base, { plan_id: plan.id, phone: '0712345670' })).status, 201);
  t.equal(tokens(), 2);
  fake.state.expireTokens = true;
  t.equal((await postPurchase(app.base, { plan_id: plan.id, phone: '0712345671' })).status, 201);
  t.equal(tokens(), 3, 'a 401 gets one new token and one more try');
  t.equal(fake.transactions.size, 4, 'one push per purchase');
});

t.test('a checkout AzamPay never answers is a 502 before the request timeout', async (t) => {
  const { fake, app, plan } = await fixture(t);
  fake.state.mode = 'hang';
  const pending = postPurchase(app.base, { plan_id: plan.id, phone: '0712345678' });
  await waitFor(() => fake.transactions.size === 1, 'the push');
  app.clock.advance('25s');
  const res = await pending;
  t.same([res.status, res.body], [502, { message: 'the payment provider could not be reached' }]);
  t.match((await wifiRows(app.app.deps.db)).invoices, [
    { status: 'failed', provider: 'azampay', failure_reason: /unreachable: no answer within 25 s/ },
  ]);
});

t.test('AzamPay without its credentials stops start-up, naming what is missing', async (t) => {
  // The configuration check refuses it (as `serve` and `setup` do), before buildApp would.
  const err = await Promise.resolve()
    .then(() => buildApp(testConfig(t.testdir(), { PAYMENT_PROVIDER: 'azampay', AZAMPAY_APP_NAME: 'App' })))
    .catch((e: unknown) => e);
  t.ok(err instanceof ConfigError);
  t.same((err as ConfigError).problems, [
    'AZAMPAY_CLIENT_ID: must be set when PAYMENT_PROVIDER is azampay',
    'AZAMPAY_CLIENT_SECRET: must be set when PAYMENT_PROVIDER is azampay',
    'AZAMPAY_API_KEY: must be set when PAYMENT_PROVIDER is azampay',
    'AZAMPAY_CALLBACK_TOKEN: must be set when PAYMENT_PROVIDER is azampay',
  ]);
  const short = (() => {
    try {
      return testConfig(t.testdir(), { AZAMPAY_CALLBACK_TOKEN: 'short' });
    } catch (e) {
      return e;
    }
  })();
  t.same((short as ConfigError).problems, [
    'AZAMPAY_CALLBACK_TOKEN: must be 32 to 200 letters, digits, - or _ (e.g. openssl rand -hex 24)',
  ]);
});
