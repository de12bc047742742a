import t from 'tap';
import { sha256Hex } from '../../src/lib/crypto.js';
import { expireInvoices, startPurchase } from '../../src/wifi/index.js';
import { startTestApp } from '../helpers/app.js';
import { jsonRequest, rawRequest } from '../helpers/http.js';
import { aPlan, aPurchaseKey, postPurchase, wifiRows } from '../helpers/wifi.js';

const NUMBER = /^HS-\d{6}-[A-HJ-NP-Z2-9]{8}$/;

t.test('a new purchase key creates a pending invoice and sends one payment prompt (201)', async (t) => {
  const { app, base, logs } = await startTestApp(t);
  const plan = await aPlan(app, { price_tzs: 1500, data_limit_bytes: 1_000_000 });
  const key = aPurchaseKey();
  const res = await postPurchase(base, { plan_id: plan.id, phone: '0712 345 678' }, key);
  t.equal(res.status, 201);
  const data = res.body.data!;
  t.same(res.body, {
    data: {
      invoice_id: data.invoice_id,
      invoice_number: data.invoice_number,
      status: 'pending',
      amount_tzs: 1500,
    },
  });
  t.match(data.invoice_number, NUMBER);
  t.match(data.invoice_number, /^HS-000001-/);
  const rows = await wifiRows(app.deps.db);
  t.match(rows.invoices, [
    {
      id: data.invoice_id,
      phone: '+255712345678',
      plan_id: plan.id,
      amount_tzs: 1500,
      duration_seconds: 3600,
      data_limit_bytes: 1_000_000,
      status: 'pending',
      provider: 'sandbox',
      purchase_key_hash: sha256Hex(key),
      provider_reference: /^SBX[0-9A-F]{12}$/,
      created_at: '2026-01-15T09:00:00.000Z',
    },
  ]);
  t.notMatch(JSON.stringify(rows), key, 'only the hash of the purchase key is stored');
  t.same(rows.purchase_keys, [
    {
      key_hash: sha256Hex(key),
      invoice_id: data.invoice_id,
      created_at: '2026-01-15T09:00:00.000Z',
      updated_at: '2026-01-15T09:00:00.000Z',
    },
  ]);
  t.match(logs.events('sandbox.prompt'), [{ invoice_number: data.invoice_number, amount_tzs: 1500 }]);
  t.notMatch(logs.raw.join('\n'), key, 'the purchase key is never logged');

  const second = await postPurchase(base, { plan_id: plan.id, phone: '+255787654321' });
  t.match(second.body.data?.invoice_number, /^HS-000002-/, 'numbers follow a sequence');
});

t.test('the same key and details return the same invoice (200) without a new prompt', async (t) => {
  const { app, base, logs } = await startTestApp(t);
  const plan = await aPlan(app);
  const key = aPurchaseKey();
  const first = await postPurchase(base, { plan_id: plan.id, phone: '0712345678' }, key);
  const before = await wifiRows(app.deps.db);
  for (const phone of ['+255712345678', '255712345678']) {
    const again = await postPurchase(base, { plan_id: plan.id.toUpperCase(), phone }, key);
    t.equal(again.status, 200, phone);
    t.same(again.body, first.body);
  }
  t.same(await wifiRows(app.deps.db), before);
  t.equal(logs.events('sandbox.prompt').length, 1);
});

t.test('the same key with other details is a 409 and changes nothing', async (t) => {
  const { app, base } = await startTestApp(t);
  const plan = await aPlan(app);
  const other = await aPlan(app, { name: 'Day', price_tzs: 3000, duration_seconds: 86_400 });
  const key = aPurchaseKey();
  await postPurchase(base, { plan_id: plan.id, phone: '0712345678' }, key);
  const before = await wifiRows(app.deps.db);
  for (const body of [
    { plan_id: other.id, phone: '0712345678' },
    { plan_id: plan.id, phone: '0787654321' },
  ]) {
    const res = await postPurchase(base, body, key);
    t.equal(res.status, 409);
    t.same(res.body, { message: 'Idempotency-Key was already used for a different purchase' });
  }
  t.same(await wifiRows(app.deps.db), before);
});

t.test('a missing or malformed Idempotency-Key is a 400 and creates nothing', async (t) => {
  const { app, base } = await startTestApp(t);
  const plan = await aPlan(app);
  const body = { plan_id: plan.id, phone: '0712345678' };
  const before = await wifiRows(app.deps.db);
  const missing = await postPurchase(base, body, null);
  t.equal(missing.status, 400);
  t.same(missing.body, { message: 'Idempotency-Key header is required' });
  for (const key of [
    'a'.repeat(15),
    'a'.repeat(97),
    'has space in it 12345',
    'semi;colon_0123456789',
    'ümlaut-0123456789ab',
  ]) {
    const res = await rawRequest(`${base}/api/v1/public/purchases`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Idempotency-Key': key },
      body: JSON.stringify(body),
    });
    t.equal(res.status, 400, key);
    t.same(res.json(), { message: 'Idempotency-Key must be 16-96 letters, digits, underscores or hyphens' });
  }
  t.same(await wifiRows(app.deps.db), before);
  t.equal((await postPurchase(base, body, 'A-b_'.repeat(4))).status, 201, '16 characters');
  t.equal((await postPurchase(base, body, 'x'.repeat(96))).status, 201, '96 characters');
});

t.test('malformed JSON, unknown fields and other content types are refused before anything', async (t) => {
  const { app, base } = await startTestApp(t);
  const plan = await aPlan(app);
  const before = await wifiRows(app.deps.db);
  const post = (body: string, type = 'application/json') =>
    rawRequest(`${base}/api/v1/public/purchases`, {
      method: 'POST',
      headers: { 'Content-Type': type, 'Idempotency-Key': aPurchaseKey() },
      body,
    });
  for (const body of [
    '{"plan_id": ',
    JSON.stringify({ plan_id: plan.id, phone: '0712345678', amount_tzs: 1 }),
    JSON.stringify([plan.id]),
    'null',
  ]) {
    const res = await post(body);
    t.equal(res.status, 400, body);
    t.same(res.json(), { message: 'invalid request body' });
  }
  const form = await post(`plan_id=${plan.id}&phone=0712345678`, 'application/x-www-form-urlencoded');
  t.equal(form.status, 415);
  t.same(await wifiRows(app.deps.db), before);
});

t.test('a bad phone or plan is a 422 and creates nothing', async (t) => {
  const { app, base } = await startTestApp(t);
  const plan = await aPlan(app);
  const hidden = await aPlan(app, { name: 'Retired', active: false });
  const before = await wifiRows(app.deps.db);
  const cases: [unknown, string][] = [
    [{ plan_id: plan.id, phone: '12345' }, 'invalid phone number'],
    [{ plan_id: plan.id, phone: '0222123456' }, 'invalid phone number'],
    [{ plan_id: plan.id, phone: 712345678 }, 'invalid phone number'],
    [{ plan_id: plan.id }, 'invalid phone number'],
    [{ plan_id: 'one-hour', phone: '0712345678' }, 'plan not found or not on sale'],
    [{ phone: '0712345678' }, 'plan not found or not on sale'],
    [
      { plan_id: '00000000-0000-4000-8000-000000000000', phone: '0712345678' },
      'plan not found or not on sale',
    ],
    [{ plan_id: hidden.id, phone: '0712345678' }, 'plan not found or not on sale'],
  ];
  for (const [body, message] of cases) {
    const res = await postPurchase(base, body);
    t.equal(res.status, 422, JSON.stringify(body));
    t.same(res.body, { message });
  }
  t.same(await wifiRows(app.deps.db), before);
});

t.test('concurrent retries of one key create exactly one invoice', async (t) => {
  const { app, base, logs } = await startTestApp(t);
  const plan = await aPlan(app);
  const key = aPurchaseKey();
  const results = await Promise.all(
    Array.from({ length: 12 }, () => postPurchase(base, { plan_id: plan.id, phone: '0712345678' }, key)),
  );
  t.same(results.map((r) => r.status).sort(), [200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
  t.equal(new Set(results.map((r) => r.body.data?.invoice_id)).size, 1, 'all name the same invoice');
  const rows = await wifiRows(app.deps.db);
  t.equal(rows.invoices?.length, 1);
  t.equal(rows.purchase_keys?.length, 1);
  t.equal(logs.events('sandbox.prompt').length, 1, 'one payment prompt');
});

t.test('INVOICE_PREFIX names the invoices', async (t) => {
  const { app, base } = await startTestApp(t, { env: { INVOICE_PREFIX: 'CAFE7' } });
  const plan = await aPlan(app);
  const res = await postPurchase(base, { plan_id: plan.id, phone: '0712345678' });
  t.match(res.body.data?.invoice_number, /^CAFE7-000001-[A-HJ-NP-Z2-9]{8}$/);
});

t.test('a purchase is refused with 503 when the database is not ready', async (t) => {
  const { app, base } = await startTestApp(t);
  const plan = await aPlan(app);
  await app.deps.db.destroy();
  const res = await postPurchase(base, { plan_id: plan.id, phone: '0712345678' });
  t.equal(res.status, 503);
  t.same(res.body, { message: 'service not ready, try again shortly' });
});

t.test('the poll shows basic status without the key; unknown invoices are 404', async (t) => {
  const { app, base } = await startTestApp(t);
  const plan = await aPlan(app);
  const key = aPurchaseKey();
  const start = await postPurchase(base, { plan_id: plan.id, phone: '0712345678' }, key);
  const { invoice_id: id, invoice_number: number } = start.body.data!;
  const basic = {
    data: { invoice_id: id, invoice_number: number, status: 'pending', amount_tzs: 1000, plan_id: plan.id },
  };
  const anonymous = await jsonRequest(`${base}/api/v1/public/purchases/${id}`);
  t.equal(anonymous.status, 200);
  t.same(anonymous.body, basic);
  const withKey = await jsonRequest(`${base}/api/v1/public/purchases/${id}`, {
    headers: { 'X-Purchase-Key': key },
  });
  t.same(withKey.body, basic, 'no credentials before payment, even with the key');
  for (const bad of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid', 'HS-000001-AAAAAAAA']) {
    const res = await jsonRequest(`${base}/api/v1/public/purchases/${bad}`);
    t.equal(res.status, 404, bad);
    t.same(res.body, { message: 'invoice not found' });
  }
});

t.test('pending invoices expire after 15 minutes; the key then starts a new invoice', async (t) => {
  const { app, base, clock } = await startTestApp(t);
  const plan = await aPlan(app);
  const key = aPurchaseKey();
  const first = (await postPurchase(base, { plan_id: plan.id, phone: '0712345678' }, key)).body.data!;
  clock.advance(15 * 60_000 - 1000);
  t.equal(await expireInvoices(app.deps), 0, 'not at 14:59');
  clock.advance('1s');
  t.equal(await expireInvoices(app.deps), 1, 'at 15:00');
  t.equal(await expireInvoices(app.deps), 0, 'once');
  const polled = await jsonRequest(`${base}/api/v1/public/purchases/${first.invoice_id}`);
  t.match(polled.body, { data: { status: 'expired' } });

  const retry = await postPurchase(base, { plan_id: plan.id, phone: '0712345678' }, key);
  t.equal(retry.status, 201, 'a new invoice replaces the expired one');
  t.not(retry.body.data?.invoice_id, first.invoice_id);
  t.match(retry.body.data, { status: 'pending', invoice_number: /^HS-000002-/ });
  const rows = await wifiRows(app.deps.db);
  t.match(rows.invoices, [{ id: first.invoice_id, status: 'expired' }, { status: 'pending' }]);
  t.match(rows.purchase_keys, [
    { invoice_id: retry.body.data?.invoice_id, updated_at: '2026-01-15T09:15:00.000Z' },
  ]);
  const again = await postPurchase(base, { plan_id: plan.id, phone: '0712345678' }, key);
  t.equal(again.status, 200, 'and the retry is idempotent again');
  t.same(again.body, retry.body);
});

t.test('INVOICE_EXPIRY changes the window', async (t) => {
  const { app, base, clock } = await startTestApp(t, { env: { INVOICE_EXPIRY: '5m' } });
  const plan = await aPlan(app);
  await postPurchase(base, { plan_id: plan.id, phone: '0712345678' });
  clock.advance('5m');
  t.equal(await expireInvoices(app.deps), 1);
});

t.test(
  'an adapter that throws instead of answering is treated as unreachable (502, invoice failed)',
  async (t) => {
    const { app } = await startTestApp(t);
    const plan = await aPlan(app);
    const payments = {
      name: 'sandbox',
      names: ['sandbox'],
      readiness: () => ({ ready: true as const }),
      guestHosts: [],
      requestPayment: () => Promise.reject(new Error('socket hang up')),
      queryStatus: () => Promise.resolve({ status: 'pending' as const }),
    };
    await t.rejects(
      startPurchase(
        { ...app.deps, payments },
        { planId: plan.id, phone: '0712345678', purchaseKey: aPurchaseKey() },
      ),
      { status: 502, message: 'the payment provider could not be reached' },
    );
    t.match((await wifiRows(app.deps.db)).invoices, [
      { status: 'failed', failure_reason: 'payment prompt unreachable: Error: socket hang up' },
    ]);
  },
);
