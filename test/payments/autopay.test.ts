import t from 'tap';
import { readOutbox } from '../../src/notify/index.js';
import { sandboxAutopay } from '../../src/payments/index.js';
import { startTestApp } from '../helpers/app.js';
import { aPlan, postPurchase, wifiRows } from '../helpers/wifi.js';

t.test('SANDBOX_AUTOPAY_SECONDS pays pending invoices through the signed webhook path', async (t) => {
  const { app, base, clock, dataDir, logs } = await startTestApp(t, {
    env: { SANDBOX_AUTOPAY_SECONDS: '10' },
  });
  t.ok(app.scheduler.names.includes('sandbox.autopay'), 'scheduled');
  const plan = await aPlan(app);
  const data = (await postPurchase(base, { plan_id: plan.id, phone: '0712345678' })).body.data!;
  clock.advance('9s');
  t.equal(await sandboxAutopay(app.deps), 0, 'not before 10 s');
  clock.advance('1s');
  t.equal(await sandboxAutopay(app.deps), 1);
  const rows = await wifiRows(app.deps.db);
  t.match(rows.invoices, [{ id: data.invoice_id, status: 'paid', paid_at: '2026-01-15T09:00:10.000Z' }]);
  t.match(rows.payment_events, [
    { provider: 'sandbox', event_id: `evt_autopay_${data.invoice_id}`, outcome: 'paid' },
  ]);
  t.equal(rows.grants?.length, 1);
  t.match(logs.events('payment.event'), [{ provider: 'sandbox', outcome: 'paid' }]);
  t.equal((await readOutbox(dataDir)).length, 1, 'the guest got the credentials SMS');
  t.equal(await sandboxAutopay(app.deps), 0, 'nothing left to pay');
});

t.test('autopay is off by default and never runs for a real provider', async (t) => {
  const off = await startTestApp(t);
  t.notOk(off.app.scheduler.names.includes('sandbox.autopay'));
  t.ok(
    ['invoices.expire', 'payments.poll', 'grants.expire'].every((j) => off.app.scheduler.names.includes(j)),
    'the purchase-flow jobs are scheduled',
  );
  const plan = await aPlan(off.app);
  await postPurchase(off.base, { plan_id: plan.id, phone: '0712345678' });
  off.clock.advance('1h');
  t.equal(await sandboxAutopay(off.app.deps), 0);
  t.match((await wifiRows(off.app.deps.db)).invoices, [{ status: 'pending' }]);

  const selcom = await startTestApp(t, {
    env: {
      SANDBOX_AUTOPAY_SECONDS: '10',
      PAYMENT_PROVIDER: 'selcom',
      SELCOM_API_KEY: 'k',
      SELCOM_API_SECRET: 's',
      SELCOM_VENDOR: 'v',
    },
  });
  t.notOk(selcom.app.scheduler.names.includes('sandbox.autopay'));
  t.equal(await sandboxAutopay(selcom.app.deps), 0);
});
