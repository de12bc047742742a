import t from 'tap';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { jsonRequest } from '../helpers/http.js';
import { staffClient } from '../helpers/staff.js';
import { aPlan } from '../helpers/wifi.js';

/**
 * A voucher batch keeps the terms it was made with (docs/decisions/0027-vouchers.md, migration
 * 0047). A reviewer's reproduction: a batch printed at 1000 TZS for 1 h, the plan then changed to
 * 1500 TZS for 2 h, and a code redeemed gave 2 h, booked 1500, and the stock report valued every
 * old batch at 1500, while the reseller had taken 1000 cash for a card that says 1 h.
 */

const HOUR = {
  name: 'Hour',
  price_tzs: 1000,
  duration_seconds: 3600,
  data_limit_bytes: 500_000_000,
  max_devices: 1,
  download_kbps: 2000,
  upload_kbps: 1000,
};
const CHANGED = {
  price_tzs: 1500,
  duration_seconds: 7200,
  data_limit_bytes: 2_000_000_000,
  max_devices: 3,
  download_kbps: 8000,
  upload_kbps: 4000,
};
/** The plan's terms the batch is made with: what every view of it must keep showing. */
const { name: _name, ...TERMS } = HOUR;

type Created = { id: string; codes: { id: string; code: string }[] };

async function stockRow(admin: Awaited<ReturnType<typeof staffClient>>, batchId: string) {
  const res = await admin.get('/api/v1/admin/reports/voucher-stock');
  const rows = (res.body as { data: { rows: Record<string, unknown>[] } }).data.rows;
  return rows.find((r) => r.batch_id === batchId);
}

const redeem = (app: TestApp, code: string) =>
  jsonRequest(`${app.base}/api/v1/public/vouchers/redeem`, { method: 'POST', body: { code } });

t.test(
  'a code redeemed after its plan changed gives and books the terms its batch was made with',
  async (t) => {
    const app = await startTestApp(t);
    const admin = await staffClient(app, 'admin');
    const plan = await aPlan(app.app, HOUR);
    const made = await admin.post('/api/v1/admin/vouchers', { plan_id: plan.id, count: 2 });
    t.equal(made.status, 201, JSON.stringify(made.body));
    const batch = (made.body as { data: Created }).data;
    t.match(made.body, { data: { plan_name: 'Hour', ...TERMS } }, 'the creation answer shows the terms');
    const [first, second] = batch.codes.map((c) => c.code);

    const changed = await admin.patch(`/api/v1/admin/plans/${plan.id}`, { name: 'Hour+', ...CHANGED });
    t.equal(changed.status, 200, JSON.stringify(changed.body));

    // The batch views: the batch's terms, the plan's name as it is now.
    t.match((await admin.get(`/api/v1/admin/vouchers/${batch.id}`)).body, {
      data: { plan_name: 'Hour+', ...TERMS },
    });
    t.match((await admin.get('/api/v1/admin/vouchers')).body, {
      data: [{ id: batch.id, plan_name: 'Hour+', ...TERMS }],
    });

    // The sheet printed again now is the card sold before.
    const sheet = await fetch(`${app.base}/api/v1/admin/vouchers/${batch.id}/print`, {
      method: 'POST',
      headers: { cookie: admin.cookieHeader(), 'content-type': 'application/json' },
      body: JSON.stringify({ format: 'a4', codes: [first] }),
    });
    t.equal(sheet.status, 200);
    const page = await sheet.text();
    const terms = /<div class="terms">([\s\S]*?)<\/div>/.exec(page)?.[1] ?? '';
    t.match(
      terms,
      /TZS\u00a01,000 · 1\u00a0hour · 500\u00a0MB/,
      'price, duration and allowance of the batch',
    );
    t.match(terms, /↓ 2 Mbit\/s {2}↑ 1 Mbit\/s/, 'its speed');
    t.notMatch(terms, /1,500|2\shours|2\sGB|8 Mbit/, "nothing of the plan's new terms");
    t.match(page, /<p class="plan">Hour\+<\/p>/, "the plan's name as it is");

    t.match(
      await stockRow(admin, batch.id),
      { plan: 'Hour+', price_tzs: 1000, face_value_tzs: 2000, unused_value_tzs: 2000 },
      'the stock is worth what it was made at',
    );

    app.clock.advance('3h');
    const res = await redeem(app, second ?? '');
    t.equal(res.status, 200, JSON.stringify(res.body));
    const data = (res.body as { data: { expires_at: string; plan_id: string; username: string } }).data;
    t.equal(data.plan_id, plan.id, "the plan's id, as before");
    t.equal(data.expires_at, new Date(app.clock.now().getTime() + 3_600_000).toISOString(), '1 h from now');

    const db = app.app.deps.db;
    const invoice = await db.selectFrom('invoices').selectAll().executeTakeFirstOrThrow();
    t.match(invoice, {
      channel: 'voucher',
      plan_id: plan.id,
      amount_tzs: 1000,
      duration_seconds: 3600,
      data_limit_bytes: 500_000_000,
      max_devices: 1,
      download_kbps: 2000,
      upload_kbps: 1000,
    });
    t.match(await db.selectFrom('payments').selectAll().executeTakeFirstOrThrow(), {
      channel: 'voucher',
      invoice_id: invoice.id,
      amount_tzs: 1000,
    });
    t.match(await db.selectFrom('grants').selectAll().executeTakeFirstOrThrow(), {
      invoice_id: invoice.id,
      username: data.username,
      expires_at: data.expires_at,
      data_limit_bytes: 500_000_000,
      max_devices: 1,
      download_kbps: 2000,
      upload_kbps: 1000,
    });
    t.match(
      await stockRow(admin, batch.id),
      { price_tzs: 1000, unused: 1, redeemed: 1, face_value_tzs: 2000, unused_value_tzs: 1000 },
      'one code left, worth 1000',
    );

    // A batch made now sells the plan's new terms; the old one keeps its own.
    const later = await admin.post('/api/v1/admin/vouchers', { plan_id: plan.id, count: 1 });
    t.match(later.body, { data: { plan_name: 'Hour+', ...CHANGED } });
    const laterId = (later.body as { data: Created }).data.id;
    t.match(await stockRow(admin, laterId), { price_tzs: 1500, face_value_tzs: 1500 });
    t.match(await stockRow(admin, batch.id), { price_tzs: 1000 });
  },
);

t.test('the audit entry of a batch records the terms it sells', async (t) => {
  const app = await startTestApp(t);
  const admin = await staffClient(app, 'admin');
  const plan = await aPlan(app.app, HOUR);
  const made = await admin.post('/api/v1/admin/vouchers', { plan_id: plan.id, count: 1 });
  const batch = (made.body as { data: Created }).data;
  const entry = await app.app.deps.db
    .selectFrom('wifi_audit')
    .select('after')
    .where('action', '=', 'voucher_batch.create')
    .executeTakeFirstOrThrow();
  t.match(JSON.parse(entry.after ?? 'null'), { id: batch.id, ...TERMS });
});
