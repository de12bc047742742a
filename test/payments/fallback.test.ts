import t, { type Test } from 'tap';
import { buildApp } from '../../src/app.js';
import { ConfigError } from '../../src/config/index.js';
import { reconcilePayments } from '../../src/wifi/index.js';
import { startTestApp, testConfig, type TestApp } from '../helpers/app.js';
import { AZAMPAY_CALLBACK_TOKEN, AZAMPAY_SITE_APP, startAzamPayFake } from '../helpers/azampay-fake.js';
import { rawRequest } from '../helpers/http.js';
import { SELCOM_KEY, SELCOM_SECRET, selcomCallback, startSelcomFake } from '../helpers/selcom-fake.js';
import { staffClient } from '../helpers/staff.js';
import { aPlan, aSite, postPurchase, wifiRows } from '../helpers/wifi.js';

/** PAYMENT_PROVIDERS=selcom,azampay: a purchase Selcom refuses or cannot take goes to AzamPay. */

const SELCOM_ENV = {
  SELCOM_API_KEY: SELCOM_KEY,
  SELCOM_API_SECRET: SELCOM_SECRET,
  SELCOM_VENDOR: 'TILL61000',
};

async function fixture(t: Test, options: { selcomDown?: boolean } = {}) {
  const selcom = await startSelcomFake();
  if (options.selcomDown) await selcom.close();
  else t.teardown(selcom.close);
  const azampay = await startAzamPayFake();
  t.teardown(azampay.close);
  const app = await startTestApp(t, {
    env: {
      PAYMENT_PROVIDERS: 'selcom,azampay',
      PUBLIC_BASE_URL: 'https://wifi.venue.example',
      SELCOM_BASE_URL: selcom.baseUrl,
      ...SELCOM_ENV,
      ...azampay.env(),
    },
  });
  const plan = await aPlan(app.app);
  return { selcom, azampay, app, plan };
}

type Invoice = {
  id: string;
  number: string;
  status: string;
  provider: string;
  provider_reference: string | null;
};
const invoices = async (app: TestApp) => (await wifiRows(app.app.deps.db)).invoices as Invoice[];

const selcomPaid = (number: string) =>
  selcomCallback({
    transid: number,
    order_id: number,
    reference: '0281121212',
    result: 'SUCCESS',
    resultcode: '000',
    payment_status: 'COMPLETED',
  });

const postSelcom = (app: TestApp, cb: { headers: Record<string, string>; body: string }) =>
  rawRequest(`${app.base}/webhooks/selcom`, { method: 'POST', headers: cb.headers, body: cb.body });

const postAzamPay = (app: TestApp, body: unknown) =>
  rawRequest(`${app.base}/webhooks/azampay/${AZAMPAY_CALLBACK_TOKEN}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });

const checkouts = (fake: { requests: { path: string }[] }) =>
  fake.requests.filter((r) => r.path.endsWith('/mno/checkout')).length;

t.test('the first provider takes every purchase while it answers', async (t) => {
  const { selcom, azampay, app, plan } = await fixture(t);
  const res = await postPurchase(app.base, { plan_id: plan.id, phone: '0712345678' });
  t.equal(res.status, 201);
  t.match(await invoices(app), [{ provider: 'selcom', provider_reference: '0289999288', status: 'pending' }]);
  t.ok(selcom.orders.has(res.body.data!.invoice_number));
  t.equal(azampay.requests.length, 0, 'AzamPay is not asked');
  const viewer = await staffClient(app, 'viewer');
  const config = (await viewer.get('/api/v1/admin/portal/config')).body.data as Record<string, unknown>;
  t.same(config.payment_provider, { name: 'selcom', ready: true, sandbox: false });
});

t.test(
  'when Selcom refuses, AzamPay takes the purchase; each provider settles only its own invoices',
  async (t) => {
    const { selcom, azampay, app, plan } = await fixture(t);
    selcom.state.mode = 'refuse';
    const res = await postPurchase(app.base, { plan_id: plan.id, phone: '0712345678' });
    t.equal(res.status, 201);
    const data = res.body.data!;
    const tx = azampay.byExternalId(data.invoice_number)!;
    t.ok(tx, 'pushed through AzamPay');
    t.match(await invoices(app), [
      {
        number: data.invoice_number,
        provider: 'azampay',
        provider_reference: tx.transactionId,
        status: 'pending',
      },
    ]);
    t.match(app.logs.events('payments.fallback'), [
      { invoice_number: data.invoice_number, from: 'selcom', to: 'azampay', reason: 'refused' },
    ]);

    // Selcom signs a success for it: it is not Selcom's invoice.
    const before = await wifiRows(app.app.deps.db);
    const wrong = await postSelcom(app, selcomPaid(data.invoice_number));
    t.same([wrong.status, wrong.json()], [422, { message: 'no invoice with this number' }]);
    t.same(await wifiRows(app.app.deps.db), before, 'nothing changed');

    tx.status = 'success';
    const right = await postAzamPay(app, azampay.callbackBody(tx));
    t.same(right.json(), { data: { event_id: `${tx.transactionId}:paid`, outcome: 'paid' } });
    t.match(await invoices(app), [{ status: 'paid', provider: 'azampay' }]);

    // And the other way round: a Selcom invoice is none of AzamPay's business.
    selcom.state.mode = 'ok';
    const viaSelcom = (await postPurchase(app.base, { plan_id: plan.id, phone: '0787654321' })).body.data!;
    t.match((await invoices(app))[1], { provider: 'selcom' });
    const asked = azampay.requests.length;
    const stray = await postAzamPay(app, {
      ...azampay.callbackBody(tx),
      utilityref: viaSelcom.invoice_number,
    });
    t.same([stray.status, stray.json()], [422, { message: 'no invoice with this number' }]);
    t.equal(azampay.requests.length, asked, 'AzamPay is not asked about a Selcom invoice');
    t.equal((await postSelcom(app, selcomPaid(viaSelcom.invoice_number))).status, 200);
    t.match(await invoices(app), [{ status: 'paid' }, { status: 'paid', provider: 'selcom' }]);
  },
);

t.test('when Selcom cannot be reached at all, AzamPay takes the purchase', async (t) => {
  const { azampay, app, plan } = await fixture(t, { selcomDown: true });
  const res = await postPurchase(app.base, { plan_id: plan.id, phone: '0712345678' });
  t.equal(res.status, 201);
  t.match(await invoices(app), [{ provider: 'azampay', status: 'pending' }]);
  t.equal(checkouts(azampay), 1);
  t.match(app.logs.events('payments.fallback'), [{ from: 'selcom', to: 'azampay', reason: 'unreachable' }]);
});

t.test('when Selcom fails before its push (a 500 on the order), AzamPay takes the purchase', async (t) => {
  const { selcom, azampay, app, plan } = await fixture(t);
  selcom.state.mode = 'error500';
  t.equal((await postPurchase(app.base, { plan_id: plan.id, phone: '0712345678' })).status, 201);
  t.match(await invoices(app), [{ provider: 'azampay', status: 'pending' }]);
  t.equal(checkouts(azampay), 1);
});

t.test('a Selcom push whose answer was lost keeps the purchase: the guest is not asked twice', async (t) => {
  const { selcom, azampay, app, plan } = await fixture(t);
  selcom.state.mode = 'pushLost';
  const res = await postPurchase(app.base, { plan_id: plan.id, phone: '0712345678' });
  t.same([res.status, res.body], [502, { message: 'the payment provider could not be reached' }]);
  t.equal(azampay.requests.length, 0, 'no second push');
  const [invoice] = await invoices(app);
  t.match(invoice, {
    provider: 'selcom',
    status: 'failed',
    failure_reason: /^payment prompt unreachable: HTTP 504/,
  });
  // The guest did pay Selcom's push: the poll asks Selcom, and the invoice is paid.
  Object.assign(selcom.orders.get(invoice!.number)!, {
    payment_status: 'COMPLETED',
    reference: '0281777777',
  });
  app.clock.advance('30s');
  t.same(await reconcilePayments(app.app.deps), { checked: 1, settled: 1 });
  t.match(await invoices(app), [{ provider: 'selcom', status: 'paid' }]);
});

t.test('when every provider refuses, the purchase is a 502 and the invoice names the last', async (t) => {
  const { selcom, azampay, app, plan } = await fixture(t);
  selcom.state.mode = 'refuse';
  azampay.state.mode = 'refuse';
  const res = await postPurchase(app.base, { plan_id: plan.id, phone: '0712345678' });
  t.same([res.status, res.body], [502, { message: 'the payment provider refused the payment request' }]);
  t.match(await invoices(app), [
    {
      provider: 'azampay',
      status: 'failed',
      failure_reason: /^payment prompt refused: HTTP 200 Wallet is not active/,
    },
  ]);
});

t.test('the poll asks each invoice its own provider', async (t) => {
  const { selcom, azampay, app, plan } = await fixture(t);
  const viaSelcom = (await postPurchase(app.base, { plan_id: plan.id, phone: '0712345678' })).body.data!;
  selcom.state.mode = 'refuse';
  const viaAzamPay = (await postPurchase(app.base, { plan_id: plan.id, phone: '0787654321' })).body.data!;
  selcom.state.mode = 'ok';
  Object.assign(selcom.orders.get(viaSelcom.invoice_number)!, {
    payment_status: 'COMPLETED',
    reference: '0281',
  });
  azampay.byExternalId(viaAzamPay.invoice_number)!.status = 'success';
  app.clock.advance('30s');
  t.same(await reconcilePayments(app.app.deps), { checked: 2, settled: 2 });
  t.same(
    selcom.requests.filter((r) => r.path.endsWith('order-status')).map((r) => r.fields.order_id),
    [viaSelcom.invoice_number],
  );
  t.same(
    azampay.requests.filter((r) => r.path.endsWith('gettransactionstatus')).map((r) => r.query.pgReferenceId),
    [azampay.byExternalId(viaAzamPay.invoice_number)!.transactionId],
  );
  t.match(await invoices(app), [
    { provider: 'selcom', status: 'paid' },
    { provider: 'azampay', status: 'paid' },
  ]);
  t.same(
    ((await wifiRows(app.app.deps.db)).payments as { provider: string }[]).map((p) => p.provider).sort(),
    ['azampay', 'selcom'],
    'one payment each, recorded as its provider’s',
  );
});

t.test(
  "staff re-check an invoice with the provider that took it, with its site's account; marking one paid by hand still works",
  async (t) => {
    const { selcom, azampay, app } = await fixture(t);
    const harbour = await aSite(app.app);
    const plan = await aPlan(app.app, { name: 'Harbour hour', price_tzs: 1500, site_id: harbour.id });
    const admin = await staffClient(app, 'admin');
    const operator = await staffClient(app, 'operator');
    t.equal(
      (
        await admin.patch(`/api/v1/admin/sites/${harbour.id}`, {
          payment_accounts: {
            azampay: {
              app_name: AZAMPAY_SITE_APP.appName,
              client_id: AZAMPAY_SITE_APP.clientId,
              client_secret: AZAMPAY_SITE_APP.clientSecret,
              api_key: AZAMPAY_SITE_APP.apiKey,
            },
          },
        })
      ).status,
      200,
    );
    selcom.state.mode = 'refuse';
    const sale = (await postPurchase(app.base, { plan_id: plan.id, phone: '0712345678' })).body.data!;
    const tx = azampay.byExternalId(sale.invoice_number)!;
    t.equal(tx.app, AZAMPAY_SITE_APP.appName, "pushed through AzamPay with the harbour's app");
    const recheck = () => operator.post(`/api/v1/admin/invoices/${sale.invoice_id}/recheck`);
    const statusQueries = () =>
      azampay.requests.filter((r) => r.path.endsWith('/gettransactionstatus')).map((r) => r.app);

    t.match(await recheck(), {
      status: 200,
      body: { data: { provider_status: 'pending', outcome: null, invoice: { status: 'pending' } } },
    });
    tx.status = 'success';
    t.match(await recheck(), {
      status: 200,
      body: {
        data: {
          provider_status: 'succeeded',
          outcome: 'paid',
          invoice: { status: 'paid', provider: 'azampay', provider_reference: tx.transactionId },
        },
      },
    });
    t.same(statusQueries(), [AZAMPAY_SITE_APP.appName, AZAMPAY_SITE_APP.appName], "AzamPay, the site's app");
    t.equal(
      selcom.requests.filter((r) => r.path.endsWith('order-status')).length,
      0,
      'Selcom is not asked about an AzamPay invoice',
    );
    t.match((await wifiRows(app.app.deps.db)).payments, [{ provider: 'azampay', amount_tzs: 1500 }]);

    // AzamPay took the next one too, the callback never came, and the guest shows the receipt.
    const other = (await postPurchase(app.base, { plan_id: plan.id, phone: '0787654321' })).body.data!;
    const marked = await admin.post(`/api/v1/admin/invoices/${other.invoice_id}/mark-paid`, {
      reason: 'Airtel Money receipt shown',
    });
    t.match(marked, { status: 200, body: { data: { invoice: { status: 'paid', provider: 'azampay' } } } });
    // A late callback about it finds it paid: one payment, the one recorded by hand.
    const late = azampay.byExternalId(other.invoice_number)!;
    late.status = 'success';
    const callback = await postAzamPay(app, azampay.callbackBody(late));
    t.same(callback.json(), { data: { event_id: `${late.transactionId}:paid`, outcome: 'already_paid' } });
    t.same(
      ((await wifiRows(app.app.deps.db)).payments as { provider: string }[]).map((p) => p.provider).sort(),
      ['azampay', 'by_hand'],
      'one payment each, in no particular order (both made in the same instant)',
    );
  },
);

t.test('a fallback order that cannot work stops start-up, saying why', async (t) => {
  const problems = async (env: Record<string, string>) => {
    try {
      const app = await buildApp(testConfig(t.testdir(), env));
      await app.close();
      return [];
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      return err.problems;
    }
  };
  const azampay = await startAzamPayFake();
  t.teardown(azampay.close);
  t.same(await problems({ PAYMENT_PROVIDERS: 'sandbox,selcom' }), [
    'PAYMENT_PROVIDERS: the sandbox takes no money: it cannot be combined with real providers (got "sandbox,selcom")',
  ]);
  t.same(await problems({ PAYMENT_PROVIDERS: 'selcom,selcom' }), [
    'PAYMENT_PROVIDERS: names a provider twice (got "selcom,selcom")',
  ]);
  t.same(await problems({ PAYMENT_PROVIDERS: 'selcom,mpesa' }), [
    'PAYMENT_PROVIDERS: must be one of sandbox, selcom, azampay (got "selcom,mpesa")',
  ]);
  t.same(
    await problems({
      PAYMENT_PROVIDER: 'azampay',
      PAYMENT_PROVIDERS: 'selcom,azampay',
      ...SELCOM_ENV,
      ...azampay.env(),
    }),
    ['PAYMENT_PROVIDER: is azampay but PAYMENT_PROVIDERS starts with selcom: set one of them'],
  );
  t.same(await problems({ PAYMENT_PROVIDERS: 'selcom,azampay', ...SELCOM_ENV }), [
    'AZAMPAY_APP_NAME: must be set when PAYMENT_PROVIDERS names azampay',
    'AZAMPAY_CLIENT_ID: must be set when PAYMENT_PROVIDERS names azampay',
    'AZAMPAY_CLIENT_SECRET: must be set when PAYMENT_PROVIDERS names azampay',
    'AZAMPAY_API_KEY: must be set when PAYMENT_PROVIDERS names azampay',
    'AZAMPAY_CALLBACK_TOKEN: must be set when PAYMENT_PROVIDERS names azampay',
  ]);
  t.same(
    await problems({
      PAYMENT_PROVIDER: 'selcom',
      PAYMENT_PROVIDERS: 'selcom,azampay',
      ...SELCOM_ENV,
      ...azampay.env(),
    }),
    [],
    'PAYMENT_PROVIDER naming the first is fine',
  );
});
