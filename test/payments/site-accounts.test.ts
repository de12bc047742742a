import path from 'node:path';
import t, { type Test } from 'tap';
import { reconcilePayments } from '../../src/wifi/index.js';
import { foundInDatabase, startTestApp, type TestApp } from '../helpers/app.js';
import {
  AZAMPAY_APP,
  AZAMPAY_CALLBACK_TOKEN,
  AZAMPAY_SITE_APP,
  startAzamPayFake,
  type AzamPayFake,
  type FakeApp,
} from '../helpers/azampay-fake.js';
import { boxEnv, runCli } from '../helpers/cli.js';
import { rawRequest } from '../helpers/http.js';
import { SELCOM_KEY, SELCOM_SECRET, selcomCallback, startSelcomFake } from '../helpers/selcom-fake.js';
import { staffClient } from '../helpers/staff.js';
import { aPlan, aSite, postPurchase, wifiRows } from '../helpers/wifi.js';

/**
 * A site's own provider account (docs/decisions/0032): its purchases are pushed, confirmed and
 * polled with its credentials; the others use the box's settings. Staff write the credentials
 * and never read them back.
 */

const accountOf = (app: FakeApp) => ({
  app_name: app.appName,
  client_id: app.clientId,
  client_secret: app.clientSecret,
  api_key: app.apiKey,
});

async function fixture(t: Test) {
  const azampay = await startAzamPayFake();
  t.teardown(azampay.close);
  const app = await startTestApp(t, { env: { PAYMENT_PROVIDER: 'azampay', ...azampay.env() } });
  const harbour = await aSite(app.app);
  const lobbyPlan = await aPlan(app.app, { name: 'Lobby hour' });
  const harbourPlan = await aPlan(app.app, { name: 'Harbour hour', price_tzs: 1500, site_id: harbour.id });
  const admin = await staffClient(app, 'admin');
  return { azampay, app, harbour, lobbyPlan, harbourPlan, admin };
}

const postAzamPay = (app: TestApp, body: unknown) =>
  rawRequest(`${app.base}/webhooks/azampay/${AZAMPAY_CALLBACK_TOKEN}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });

/** The app whose token each checkout-API call of an invoice carried. */
const appsFor = (fake: AzamPayFake, number: string) => {
  const tx = fake.byExternalId(number);
  return fake.requests
    .filter(
      (r) =>
        r.body?.externalId === number || (tx !== undefined && r.query.pgReferenceId === tx.transactionId),
    )
    .map((r) => r.app);
};

t.test('staff give a site its own AzamPay account: written, sealed, never shown', async (t) => {
  const { app, harbour, admin } = await fixture(t);
  const res = await admin.patch(`/api/v1/admin/sites/${harbour.id}`, {
    payment_accounts: { azampay: accountOf(AZAMPAY_SITE_APP) },
  });
  t.equal(res.status, 200);
  t.same(res.body.data.payment_accounts, ['azampay']);
  const shown = JSON.stringify([res.body, (await admin.get(`/api/v1/admin/sites/${harbour.id}`)).body]);
  t.same((await admin.get(`/api/v1/admin/sites/${harbour.id}`)).body.data, res.body.data);
  for (const secret of [AZAMPAY_SITE_APP.clientSecret, AZAMPAY_SITE_APP.apiKey, AZAMPAY_SITE_APP.clientId])
    t.notMatch(shown, secret, 'the API never shows a credential');
  t.same(
    await foundInDatabase(app, [AZAMPAY_SITE_APP.clientSecret, AZAMPAY_SITE_APP.apiKey]),
    [],
    'sealed at rest',
  );
  t.same(
    ((await admin.get('/api/v1/admin/sites')).body.data as { payment_accounts: string[] }[]).map(
      (s) => s.payment_accounts,
    ),
    [[], ['azampay']],
    'the default site uses the box settings',
  );

  const before = await wifiRows(app.app.deps.db);
  const sitesBefore = await app.app.deps.db.selectFrom('sites').selectAll().execute();
  const message =
    'payment_accounts must map selcom (api_key, api_secret, vendor) or azampay (app_name, client_id, client_secret, api_key) to every one of its credentials, or to null';
  const { api_key: _k, ...partial } = accountOf(AZAMPAY_SITE_APP);
  for (const [name, value] of [
    ['a credential missing', { azampay: partial }],
    ['an empty one', { azampay: { ...accountOf(AZAMPAY_SITE_APP), api_key: ' ' } }],
    ['a field of its own', { azampay: { ...accountOf(AZAMPAY_SITE_APP), base_url: 'http://evil' } }],
    ['a provider it does not know', { mpesa: { api_key: 'x' } }],
    ['the sandbox', { sandbox: null }],
    ['not an object', ['azampay']],
    ['a number', { azampay: { ...accountOf(AZAMPAY_SITE_APP), api_key: 42 } }],
  ] as const) {
    const refused = await admin.patch(`/api/v1/admin/sites/${harbour.id}`, { payment_accounts: value });
    t.same([refused.status, refused.body], [422, { message }], name);
  }
  const viewer = await staffClient(app, 'viewer');
  t.equal(
    (await viewer.patch(`/api/v1/admin/sites/${harbour.id}`, { payment_accounts: { azampay: null } })).status,
    403,
  );
  t.same(await wifiRows(app.app.deps.db), before);
  t.same(await app.app.deps.db.selectFrom('sites').selectAll().execute(), sitesBefore, 'nothing changed');

  const cleared = await admin.patch(`/api/v1/admin/sites/${harbour.id}`, {
    payment_accounts: { azampay: null },
  });
  t.same(cleared.body.data.payment_accounts, []);
});

t.test("a site's plan is pushed, confirmed and polled with the site's account", async (t) => {
  const { azampay, app, harbour, lobbyPlan, harbourPlan, admin } = await fixture(t);
  await admin.patch(`/api/v1/admin/sites/${harbour.id}`, {
    payment_accounts: { azampay: accountOf(AZAMPAY_SITE_APP) },
  });
  const lobby = (await postPurchase(app.base, { plan_id: lobbyPlan.id, phone: '0712345678' })).body.data!;
  const harbourSale = (await postPurchase(app.base, { plan_id: harbourPlan.id, phone: '0787654321' })).body
    .data!;
  t.same(appsFor(azampay, lobby.invoice_number), [AZAMPAY_APP.appName], 'the default site: the box account');
  t.same(appsFor(azampay, harbourSale.invoice_number), [AZAMPAY_SITE_APP.appName], "the harbour's own");
  t.match(
    azampay.requests.filter((r) => r.path.endsWith('GenerateToken')).map((r) => r.body?.clientId),
    [AZAMPAY_APP.clientId, AZAMPAY_SITE_APP.clientId],
  );

  // The callback is confirmed with the harbour's account (its app sees its own transaction only).
  const tx = azampay.byExternalId(harbourSale.invoice_number)!;
  tx.status = 'success';
  const paid = await postAzamPay(app, azampay.callbackBody(tx));
  t.same(paid.json(), { data: { event_id: `${tx.transactionId}:paid`, outcome: 'paid' } });
  t.same(appsFor(azampay, harbourSale.invoice_number), [AZAMPAY_SITE_APP.appName, AZAMPAY_SITE_APP.appName]);
  t.match((await wifiRows(app.app.deps.db)).payments, [{ provider: 'azampay', amount_tzs: 1500 }]);

  // The poll, for the lobby's invoice, uses the box's.
  azampay.byExternalId(lobby.invoice_number)!.status = 'success';
  app.clock.advance('30s');
  t.same(await reconcilePayments(app.app.deps), { checked: 1, settled: 1 });
  t.same(appsFor(azampay, lobby.invoice_number), [AZAMPAY_APP.appName, AZAMPAY_APP.appName]);
  t.equal(
    azampay.requests.filter((r) => r.path.endsWith('GenerateToken')).length,
    2,
    'one token per account, reused',
  );

  // New credentials take effect at once; dropping them goes back to the box's account.
  await admin.patch(`/api/v1/admin/sites/${harbour.id}`, {
    payment_accounts: { azampay: { ...accountOf(AZAMPAY_SITE_APP), client_secret: 'revoked' } },
  });
  const refused = await postPurchase(app.base, { plan_id: harbourPlan.id, phone: '0787654321' });
  t.equal(refused.status, 502, 'the changed (wrong) secret is used');
  await admin.patch(`/api/v1/admin/sites/${harbour.id}`, { payment_accounts: { azampay: null } });
  const again = (await postPurchase(app.base, { plan_id: harbourPlan.id, phone: '0787654321' })).body.data!;
  t.same(appsFor(azampay, again.invoice_number), [AZAMPAY_APP.appName]);
  t.notMatch(app.logs.raw.join('\n'), AZAMPAY_SITE_APP.clientSecret);
});

t.test("a site's own Selcom account signs its orders and verifies its callbacks", async (t) => {
  const siteKey = 'harbour-selcom-key';
  const siteSecret = 'harbour-selcom-secret';
  const selcom = await startSelcomFake(
    new Map([
      [SELCOM_KEY, SELCOM_SECRET],
      [siteKey, siteSecret],
    ]),
  );
  t.teardown(selcom.close);
  const app = await startTestApp(t, {
    env: {
      PAYMENT_PROVIDER: 'selcom',
      SELCOM_BASE_URL: selcom.baseUrl,
      SELCOM_API_KEY: SELCOM_KEY,
      SELCOM_API_SECRET: SELCOM_SECRET,
      SELCOM_VENDOR: 'TILL61000',
    },
  });
  const harbour = await aSite(app.app, {
    payment_accounts: { selcom: { api_key: siteKey, api_secret: siteSecret, vendor: 'TILL62000' } },
  });
  const plan = await aPlan(app.app, { site_id: harbour.id });
  const res = await postPurchase(app.base, { plan_id: plan.id, phone: '0712345678' });
  t.equal(res.status, 201);
  const number = res.body.data!.invoice_number;
  t.match(selcom.requests, [
    {
      path: '/v1/checkout/create-order-minimal',
      key: siteKey,
      authentic: true,
      fields: { vendor: 'TILL62000' },
    },
    { path: '/v1/checkout/wallet-payment', key: siteKey, authentic: true },
  ]);
  const body = {
    transid: number,
    order_id: number,
    reference: '0281121212',
    result: 'SUCCESS',
    resultcode: '000',
    payment_status: 'COMPLETED',
  };
  const post = (cb: { headers: Record<string, string>; body: string }) =>
    rawRequest(`${app.base}/webhooks/selcom`, { method: 'POST', headers: cb.headers, body: cb.body });
  const boxSigned = await post(selcomCallback(body));
  t.same([boxSigned.status, boxSigned.json()], [401, { message: 'invalid webhook signature' }]);
  const siteSigned = await post(selcomCallback(body, { key: siteKey, secret: siteSecret }));
  t.same(siteSigned.json(), { data: { event_id: `${number}:COMPLETED:0281121212`, outcome: 'paid' } });
});

t.test(
  'hotspot-ctl sites update sets and drops a site account; the credentials are not printed',
  async (t) => {
    const env = await boxEnv(path.join(t.testdir(), 'data'));
    t.equal((await runCli(['sites', 'add', '--slug', 'harbour', '--name', 'Harbour'], env)).code, 0);
    const flags = [
      '--azampay-app-name',
      AZAMPAY_SITE_APP.appName,
      '--azampay-client-id',
      AZAMPAY_SITE_APP.clientId,
      '--azampay-client-secret',
      AZAMPAY_SITE_APP.clientSecret,
    ];
    const partial = await runCli(['sites', 'update', 'harbour', ...flags], env);
    t.equal(partial.code, 1);
    t.match(partial.stderr, /payment_accounts must map selcom .* to every one of its credentials/);
    const set = await runCli(
      ['sites', 'update', 'harbour', ...flags, '--azampay-api-key', AZAMPAY_SITE_APP.apiKey, '--json'],
      env,
    );
    t.equal(set.code, 0, set.stderr);
    t.match(JSON.parse(set.stdout), { slug: 'harbour', payment_accounts: ['azampay'] });
    t.notMatch(set.stdout, AZAMPAY_SITE_APP.clientSecret);
    const listed = await runCli(['sites', 'list'], env);
    t.match(listed.stdout, /PAYMENT_ACCOUNTS/);
    t.match(listed.stdout, /harbour .*azampay/);
    const dropped = await runCli(['sites', 'update', 'harbour', '--no-azampay-account', '--json'], env);
    t.match(JSON.parse(dropped.stdout), { payment_accounts: [] });
  },
);
